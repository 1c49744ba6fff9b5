#pragma once
// Exact resumption, the check every trainer test shares: a run trained whole and the same run stopped
// and resumed must end with the same weights.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "model/transformer.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace cc::test {

// Trains `cfg` whole into dir_a, and into dir_b stopped at `stop` then resumed; returns the largest
// weight difference between the two (0: the resume is exact). dir_a keeps the whole run's checkpoints.
inline double resume_difference(const train::RunConfig& cfg, const std::string& dir_a, const std::string& dir_b,
                                int64_t stop) {
  train::TrainOptions o;
  o.progress = false;
  o.out_dir = dir_a;
  train::Trainer whole(cfg, o);
  whole.run();
  o.out_dir = dir_b;
  o.stop_after = stop;
  train::Trainer(cfg, o).run();
  o.stop_after = -1;
  train::Trainer resumed(cfg, o);
  EXPECT_EQ(resumed.start_step(), stop);
  resumed.run();
  return model::max_abs_diff(resumed.model(), whole.model());
}

// The weights of the last checkpoint in `dir` (a run trained there).
inline std::shared_ptr<model::Transformer> final_weights(const std::string& dir) {
  return train::load_checkpoint(train::checkpoint_path(dir, train::list_checkpoints(dir).back())).model;
}

}  // namespace cc::test
