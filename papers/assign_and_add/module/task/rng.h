#pragma once
// The task's random streams: the engine's counter-based Rng (util/rng.h), and the ids of the streams
// its training batches and its held-out pairs are drawn from.
#include <cstdint>

#include "util/rng.h"

namespace cc::assign_and_add::task {

using cc::Rng;
using cc::stream_id;

constexpr uint64_t kTrainStream = 0x7472616e;  // "tran"
constexpr uint64_t kPairStream = 0x70616972;   // "pair"

}  // namespace cc::assign_and_add::task
