#pragma once
// One writer per output folder: a run folder (`train --out`, a cache entry the run store trains) or a
// report folder (`verify --report`). A second claimcheck that wants the folder says it is waiting and
// waits for the first to finish (flock on the folder itself: released when the holder exits, however
// it exits; no lock file is left in the folder). Two trainers into one folder then resume one after
// the other instead of interleaving their metrics; two verifies write one report each, whole.
#include <string>

namespace cc {

class FolderLock {
 public:
  // Creates `dir` if needed and locks it; `what` says what the folder is, for the waiting message.
  FolderLock(const std::string& dir, const std::string& what);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace cc
