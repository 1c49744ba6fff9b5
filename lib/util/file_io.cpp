#include "util/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error.h"

namespace cc {

bool path_present(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

bool lies_within(const std::string& path, const std::string& folder) {
  namespace fs = std::filesystem;
  const fs::path p = fs::weakly_canonical(fs::absolute(path)), f = fs::weakly_canonical(fs::absolute(folder));
  return std::mismatch(f.begin(), f.end(), p.begin(), p.end()).first == f.end();
}

namespace {

// Closes the descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Opens `path` and checks it is a regular file of at most max_bytes; returns its size.
size_t open_regular(const std::string& path, size_t max_bytes, const std::string& what, Fd& f) {
  f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f.fd < 0) throw Error(path + ": cannot open " + what + " (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw Error(path + ": cannot stat " + what + " (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw Error(path + ": " + what + " is " + kind_of(st.st_mode) + ", not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    throw Error(path + ": " + std::to_string(size) + " bytes; a " + what + " is at most " + std::to_string(max_bytes) +
                " bytes");
  return static_cast<size_t>(size);
}

}  // namespace

std::string read_regular_file(const std::string& path, size_t max_bytes, const std::string& what) {
  Fd f;
  const size_t size = open_regular(path, max_bytes, what, f);
  std::string out(size + 1, '\0');  // one byte more than fstat said: a file that grew is caught
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(path + ": cannot read " + what + " (" + std::strerror(errno) + ")");
    if (n == 0) break;
    got += static_cast<size_t>(n);
    if (got > max_bytes)
      throw Error(path + ": more than " + std::to_string(max_bytes) + " bytes (it grew while read); a " + what +
                  " is at most " + std::to_string(max_bytes) + " bytes");
  }
  out.resize(got);
  return out;
}

void require_regular_file(const std::string& path, const std::string& what) {
  Fd f;
  open_regular(path, SIZE_MAX, what, f);
}

MappedFile::MappedFile(const std::string& path, size_t max_bytes, const std::string& what) {
  Fd f;
  size_ = open_regular(path, max_bytes, what, f);
  if (size_ == 0) return;  // mmap of 0 bytes fails; an empty view is the file
  data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    throw Error(path + ": cannot map " + what + " (" + std::strerror(errno) + ")");
  }
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace cc
