#pragma once
// Reading input files with a bound on memory and time, whatever the path names. Every claim, runs
// and config file, sidecar, metrics log, summary and checkpoint is read through here:
//   - only regular files: a FIFO would block forever and /dev/zero or /dev/urandom never end;
//   - the size is checked before reading (fstat), and at most max_bytes + 1 bytes are read, so a file
//     that grows while being read is refused too;
//   - opened O_NONBLOCK, so a FIFO put in place of a file between a check and the open still cannot block.
#include <cstddef>
#include <string>
#include <string_view>

namespace cc {

// Caps on input files. Every cap keeps a process under 256 MB (libtorch itself takes ~100 MB).
constexpr size_t kMaxYamlBytes = 256 << 10;       // claim, runs and config files (the largest today: 8 KB)
constexpr size_t kMaxJsonBytes = 16 << 20;        // sidecars, run.json, metrics logs, sweep summaries (largest: 320 KB)
constexpr size_t kMaxCheckpointBytes = 64 << 20;  // safetensors (the model: 0.9 MB; with AdamW moments: 2.6 MB)

// The whole file; cc::Error naming `path` and the problem ("what" names the kind of file).
std::string read_regular_file(const std::string& path, size_t max_bytes, const std::string& what);

// Whether anything stands at `path`, a symlink counted as itself: never throws, so a symlink loop
// (whose std::filesystem::exists throws "too many levels of symbolic links") is "present" and then
// refused by the reader as not a regular file, instead of ending the process.
bool path_present(const std::string& path);

// Whether `path` is `folder` or lies below it, both resolved as they stand on disk (links followed:
// std::filesystem::weakly_canonical): the test for a file that must not be read from outside a tree.
bool lies_within(const std::string& path, const std::string& folder);

// Throws unless `path` is a regular file (a FIFO, device, directory or missing path is an Error).
void require_regular_file(const std::string& path, const std::string& what);

// A regular file of at most max_bytes, mapped read-only: its bytes without a copy in memory.
class MappedFile {
 public:
  MappedFile(const std::string& path, size_t max_bytes, const std::string& what);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cc
