//===- LoopPipelining.h - helpers of the loop pipeliners ----------*- C++
//-*-===//
//
// What kcc-pipeline-tma-loads (TMA + mbarriers, sm_90a) and
// kcc-pipeline-async-copies (cp.async groups, sm_80) share: which loop
// values a later iteration's copy can recompute, and the shared memory a
// kernel already holds or will need besides the new stages.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_LOOPPIPELINING_H
#define KCC_PASSES_LOOPPIPELINING_H

#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"

namespace kcc::pipelining {

mlir::Value constI32(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// The shared stages `func`'s K loops get: its stages(S) clause
/// (kcc.pipeline_stages) where it has one, else the pass's `option`.
inline int64_t stagesOf(mlir::func::FuncOp func, unsigned option) {
  if (auto s = func->getAttrOfType<mlir::IntegerAttr>(
          KccDialect::kPipelineStagesAttr))
    return s.getInt();
  return option;
}

/// The iterations of a loop from `lb` to `ub` by the positive `step`:
/// max(0, ceil((ub - lb) / step)), in i32.
mlir::Value tripCount(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lb,
                      mlir::Value ub, int64_t step);

/// Whether `v` is computed by pure arith ops from constants, the kernel's
/// arguments, program ids and a persistent tile loop's induction variable
/// only (what the async verifier can evaluate). With `scalarLoads`, integer
/// scalars loaded from memory count too (a sequence's length read from an
/// array): the verifier chooses representative values for them as for the
/// arguments.
bool fromArguments(mlir::Value v, mlir::func::FuncOp func,
                   bool scalarLoads = false);

/// The ops of `loop`'s body that compute `v` from the induction variable
/// and values defined outside the loop, in program order; false if `v`
/// depends on anything else (loads, iteration arguments, region ops).
bool coordinateSlice(mlir::Value v, mlir::scf::ForOp loop,
                     llvm::SetVector<mlir::Operation *> &slice);

/// Like coordinateSlice, for the pointers and mask of a gathered tile: the
/// ops may also be kcc's pure tile ops (splat, arange, expand_dims,
/// broadcast, addptr) and loads of memory the kernel never writes (a block
/// table), which a later iteration's copy then reads ahead.
bool gatherSlice(mlir::Value v, mlir::scf::ForOp loop,
                 llvm::SetVector<mlir::Operation *> &slice);

/// Shared memory `func` already has for async buffers (the stages of
/// materialized copies and of loops pipelined before, their mbarriers),
/// alignment included.
int64_t asyncBufferBytes(mlir::func::FuncOp func);

/// What the NVIDIA lowering's scratch buffer (relayouts and reductions, one
/// buffer reused by all) can need: the largest tile one of those ops moves
/// through shared memory, before the padding of kcc-choose-shared-layouts.
/// Layouts are not chosen yet, so every such op counts, except the trans
/// ops `stagedTrans` names: operands the tensor cores will read from their
/// stage transposed, which never pass through registers. Nor the ops of
/// `rowWise` (kcc::predictRowWiseWeb: the softmax between two wgmma
/// products stays in the accumulator's registers); its values count only
/// where they leave it.
int64_t scratchReserve(mlir::func::FuncOp func,
                       llvm::function_ref<bool(kcc::TransOp)> stagedTrans,
                       const llvm::DenseSet<mlir::Value> &rowWise = {});

/// Bytes of the scratch through which a dot on mma.sync takes operands held
/// in registers (not read from the stages of a pipeline): each operand's
/// rows, padded by 16 bytes (backends/nvidia/DotToMmaSync.cpp, dotScratch).
int64_t registerOperandScratch(kcc::DotOp dot);

/// `if (lb < ub)` before `loop`, with the loop's result types: the else
/// branch yields the loop's inits (what the loop gives when it runs no
/// trip), the then block is left empty for the caller's rewrite of the loop.
mlir::scf::IfOp guardLoopRuns(mlir::scf::ForOp loop);

/// 32-bit registers a thread holds of `tile` in the #kcc.wgmma_acc layout
/// (16-bit elements packed in pairs).
int64_t accumulatorRegisters(mlir::Value tile);

/// What a thread may hold in the accumulator tiles a deferral of products
/// (kcc-defer-register-a-mma, kcc-defer-block-promotion) keeps live
/// together: its register budget (the consumer's setmaxnreg in a
/// warp-specialized kernel, else the 255 of a thread) less what addresses,
/// row statistics and masks take besides.
int64_t tileRegisterBudget(mlir::Operation *op);

} // namespace kcc::pipelining

#endif // KCC_PASSES_LOOPPIPELINING_H
