#pragma once
// Precompiled once for all torch-using libraries: parsing torch/torch.h costs ~30 s a TU.
#include <torch/torch.h>
