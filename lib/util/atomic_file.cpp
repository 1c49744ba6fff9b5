#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/error.h"

namespace cc {

void write_file_atomic(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp";
  // On any failure the half-written .tmp is removed: it would keep a full disk full, and nothing
  // reads it (only the rename below makes a file visible under its name).
  auto fail = [&](const std::string& what, int err) {
    ::unlink(tmp.c_str());
    throw WriteError(tmp + ": " + what + " (" + std::strerror(err) +
                     (err == ENOSPC || err == EDQUOT ? ": the disk is full" : "") + "); " + path + " is unchanged");
  };
  // A file left there by an interrupted writer, or a link planted under the name, is removed, never
  // written through: the new file is created afresh (O_EXCL; O_NOFOLLOW refuses a link that appeared since).
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw WriteError(tmp + ": cannot open for writing (" + std::strerror(errno) + ")");
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      fail("write failed", err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) fail("write failed on close", errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot rename it into place as " + path, errno);
}

}  // namespace cc
