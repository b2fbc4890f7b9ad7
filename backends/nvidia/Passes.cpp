//===- Passes.cpp - shared pieces of NVIDIA lowering passes -----------------===//
#include "backends/nvidia/Passes.h"
