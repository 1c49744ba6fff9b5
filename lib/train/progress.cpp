#include "train/progress.h"

#include <unistd.h>

#include <cstdio>

namespace cc::train {

Progress::Progress(int64_t first_step, int64_t last_step, bool enabled, double line_every_s)
    : first_(first_step),
      last_(last_step),
      enabled_(enabled),
      tty_(isatty(STDERR_FILENO) == 1),
      line_every_s_(line_every_s),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

void Progress::update(int64_t step, double loss) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  if (since < (tty_ ? 0.25 : line_every_s_)) return;
  last_print_ = now;
  print(step, loss, false);
}

void Progress::finish(int64_t step, double loss) {
  if (enabled_) print(step, loss, true);
}

void Progress::print(int64_t step, double loss, bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(step - first_) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(last_ - step) / rate : 0.0;
  const double frac = last_ > first_ ? static_cast<double>(step - first_) / static_cast<double>(last_ - first_) : 1.0;
  if (tty_) {
    const int width = 30, filled = static_cast<int>(frac * width);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(width - filled), '.');
    std::fprintf(stderr, "\r[%s] step %lld/%lld  loss %.4f  %.1f step/s  ETA %.0fs   ", bar.c_str(),
                 static_cast<long long>(step), static_cast<long long>(last_), loss, rate, eta);
    if (final) std::fprintf(stderr, "\n");
  } else {
    std::fprintf(stderr, "step %lld/%lld (%.0f%%) loss %.4f %.1f step/s ETA %.0fs%s\n", static_cast<long long>(step),
                 static_cast<long long>(last_), 100.0 * frac, loss, rate, eta, final ? " done" : "");
  }
  std::fflush(stderr);
}

}  // namespace cc::train
