#include "util/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "util/atomic_file.h"
#include "util/error.h"

namespace cc {

FolderLock::FolderLock(const std::string& dir, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))  // `--out /etc/passwd`: a file where the folder goes
    throw WriteError(dir + ": cannot make the " + what + " there (" +
                     (ec ? ec.message() : std::string("it exists and is not a folder")) + ")");
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw Error(dir + ": cannot open the " + what + " folder to lock it (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  if (errno != EWOULDBLOCK) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw Error(dir + ": cannot lock the " + what + " folder (" + why + ")");
  }
  std::fprintf(stderr, "claimcheck: waiting: another claimcheck is writing %s (the %s)\n", dir.c_str(), what.c_str());
  int rc;
  while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw Error(dir + ": cannot lock the " + what + " folder (" + why + ")");
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace cc
