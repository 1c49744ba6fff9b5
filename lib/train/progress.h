#pragma once
// Training progress: a redrawn bar with step/s and ETA on a terminal; plain periodic lines
// (one every `line_every_s` seconds) when stderr is a log file or a CI pipe.
#include <chrono>
#include <cstdint>
#include <string>

namespace cc::train {

class Progress {
 public:
  Progress(int64_t first_step, int64_t last_step, bool enabled = true, double line_every_s = 30.0);
  void update(int64_t step, double loss);
  void finish(int64_t step, double loss);

 private:
  void print(int64_t step, double loss, bool final);
  int64_t first_, last_;
  bool enabled_, tty_;
  double line_every_s_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace cc::train
