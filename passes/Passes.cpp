//===- Passes.cpp - shared pieces of kcc passes -----------------------------===//
#include "passes/Passes.h"
