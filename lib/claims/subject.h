#pragma once
// What a claim measures (its subject) and where on it (its stage), as types. A claim file spells them
//   subject: {run: NAME | sweep: NAME | theory: NAME, checkpoint: final | init | STEP}
//   control: {checkpoint: init}   (or, for a theory model, {params: ...})
// and report.json writes them back the same way (Stage::text).
#include <cstdint>
#include <string>

#include "analysis/registry.h"
#include "catalogue/runs.h"

namespace cc::claims {

struct Subject {
  analysis::Subject kind = analysis::Subject::Checkpoint;  // the kinds name what they take the same way
  std::string name;                                        // the run, the sweep or the theory model

  bool is_run() const { return kind == analysis::Subject::Checkpoint; }
  bool is_sweep() const { return kind == analysis::Subject::Sweep; }
  bool is_theory() const { return kind == analysis::Subject::Theory; }
  const char* field() const;     // "run", "sweep" or "theory": its key under `subject:`
  std::string describe() const;  // "run default", "sweep pair_fraction", "theory model t1"
};

// Where on its subject a claim, or its negative control, is measured: a run's last step, its
// initialisation or a given step; a sweep's points at their last step or at step 0; a theory model
// with the claim's parameters or with its control's.
class Stage {
 public:
  enum class Kind { Final, Init, Step, Theory, TheoryControl };

  static Stage final_step() { return Stage(Kind::Final); }
  static Stage init() { return Stage(Kind::Init); }
  static Stage step(int64_t s) { return Stage(Kind::Step, s); }
  static Stage theory() { return Stage(Kind::Theory); }
  static Stage theory_control() { return Stage(Kind::TheoryControl); }
  // "final", "init" or a step in [0, the run's steps]; cc::Error otherwise.
  static Stage parse(const std::string& text, const catalogue::RunSpec& spec);

  Kind kind() const { return kind_; }
  bool is_init() const { return kind_ == Kind::Init; }
  // "final", "init", the step, "none" (a theory model's own parameters) or "control" (its control's).
  std::string text() const;
  // The step of `spec` this stage reads (a theory stage reads none: cc::Error).
  int64_t step_of(const catalogue::RunSpec& spec) const;

 private:
  explicit Stage(Kind k, int64_t s = 0) : kind_(k), step_(s) {}
  Kind kind_;
  int64_t step_;
};

}  // namespace cc::claims
