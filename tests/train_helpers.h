#pragma once
// The tiny training run the trainer, ensemble and reproducibility tests share: a few dozen
// steps of the default task and model, evaluated and resumable every 10 steps.
#include <cstdint>

#include "train/run_config.h"

namespace cc::test {

inline train::RunConfig tiny_run(int64_t steps, uint64_t seed = 0, int batch = 64, int eval_size = 50) {
  train::RunConfig c;
  c.seed = seed;
  c.train.steps = steps;
  c.train.batch_size = batch;
  c.train.eval_every = 10;
  c.train.eval_size = eval_size;
  c.train.resume_every = 10;
  c.model.derive(c.task);
  return c;
}

}  // namespace cc::test
