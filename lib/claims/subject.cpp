#include "claims/subject.h"

#include "util/error.h"

namespace cc::claims {

const char* Subject::field() const { return is_theory() ? "theory" : is_sweep() ? "sweep" : "run"; }

std::string Subject::describe() const { return (is_theory() ? "theory model " : std::string(field()) + " ") + name; }

Stage Stage::parse(const std::string& text, const catalogue::RunSpec& spec) {
  if (text == "final") return final_step();
  if (text == "init") return init();
  try {
    size_t used = 0;
    const long long s = std::stoll(text, &used);
    if (used == text.size() && s >= 0 && s <= spec.config.train.steps) return step(s);
  } catch (...) {
  }
  throw Error("checkpoint '" + text + "' is not final, init or a step in [0, " +
              std::to_string(spec.config.train.steps) + "] of run '" + spec.name + "'");
}

std::string Stage::text() const {
  switch (kind_) {
    case Kind::Final:
      return "final";
    case Kind::Init:
      return "init";
    case Kind::Step:
      return std::to_string(step_);
    case Kind::Theory:
      return "none";
    case Kind::TheoryControl:
      break;
  }
  return "control";
}

int64_t Stage::step_of(const catalogue::RunSpec& spec) const {
  switch (kind_) {
    case Kind::Final:
      return spec.config.train.steps;
    case Kind::Init:
      return 0;
    case Kind::Step:
      return step_;
    case Kind::Theory:
    case Kind::TheoryControl:
      break;
  }
  throw Error("a theory model's stage has no step of run '" + spec.name + "'");
}

}  // namespace cc::claims
