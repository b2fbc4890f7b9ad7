//===- DotStaging.cpp - dot operands through shared memory, and K loops ---===//
//
// The register-operand tensor-core lowerings (mma.sync on NVIDIA, MFMA on
// AMD) stage a dot's operands in the shared-memory scratch that dotScratch
// lays out, then run a K loop over 16-wide steps: both halves are the same
// for every vendor and live here.
//
//===----------------------------------------------------------------------===//
#include "backends/gpu/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kcc;
using namespace kcc::gpu;

void kcc::gpu::storeTileRows(const TargetOps &ops, OpBuilder &b,
                                Location loc, Value v, RankedTensorType type,
                                Value base, int64_t rowStride) {
  TileLayout l = TileLayout::get(type);
  Type elem = type.getElementType();
  unsigned bytes = storageBytes(elem);
  int64_t cols = type.getDimSize(1);
  unsigned vec = std::min<int64_t>(l.vec, cols);
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value tid = ops.threadId(b, loc);
  SmallVector<Value> regs = unpack(b, loc, v);
  Value tBase = threadBase(b, loc, l, tid);
  unsigned logCols = llvm::Log2_64(cols);
  // What the address is aligned to, not the access's size: a chunk starts
  // at a multiple of its own size within a row, but rows are padded
  // (rowStride) and the base is only 16-byte aligned (dotScratch), so a
  // 32-byte chunk of a row padded by 16 bytes is 16-byte aligned (the
  // backends split it in two accesses; claiming 32 would be undefined).
  int64_t align = std::min<int64_t>(
      {int64_t(vec) * bytes, 16,
       int64_t(1) << llvm::countr_zero(uint64_t(rowStride) * bytes)});
  emitIf(b, loc, ownerPred(b, loc, l, tid), [&](OpBuilder &ib) {
    for (unsigned r = 0; r < l.regs; r += vec) {
      Value flat = flatIndex(ib, loc, l, tBase, r);
      Value row =
          arith::ShRUIOp::create(ib, loc, flat, i32Const(ib, loc, logCols));
      Value col =
          arith::AndIOp::create(ib, loc, flat, i32Const(ib, loc, cols - 1));
      Value idx = arith::AddIOp::create(
          ib, loc,
          arith::MulIOp::create(ib, loc, row, i32Const(ib, loc, rowStride)),
          col);
      Value addr =
          LLVM::GEPOp::create(ib, loc, ptr3, storageType(elem), base, idx);
      Value chunk = vec == 1
                        ? regs[r]
                        : buildVector(ib, loc, ArrayRef(regs).slice(r, vec));
      LLVM::StoreOp::create(ib, loc, chunk, addr, align);
    }
  });
}

std::pair<Value, Value> kcc::gpu::stageDotOperands(const TargetOps &ops,
                                                      OpBuilder &b,
                                                      Location loc, DotOp op,
                                                      Value a, Value bTile) {
  DotScratch s = dotScratch(op);
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value aBase = scratchBase(ops, b, loc, op);
  Value bBase =
      LLVM::GEPOp::create(b, loc, ptr3, b.getI8Type(), aBase,
                          ArrayRef<LLVM::GEPArg>{int32_t(s.bOffset)});
  ops.barrier(b, loc); // earlier readers of the scratch are done
  storeTileRows(ops, b, loc, a, op.getA().getType(), aBase, s.aRowStride);
  storeTileRows(ops, b, loc, bTile, op.getB().getType(), bBase,
                s.bRowStride);
  ops.barrier(b, loc);
  return {aBase, bBase};
}

Value kcc::gpu::accumulateKSteps(
    OpBuilder &b, Location loc, Value acc, int64_t steps,
    function_ref<void(OpBuilder &, Location, Value, MutableArrayRef<Value>)>
        body,
    int64_t kStep) {
  SmallVector<Value> init = unpack(b, loc, acc);
  auto loop = scf::ForOp::create(
      b, loc, i32Const(b, loc, 0), i32Const(b, loc, steps), i32Const(b, loc, 1),
      init, [&](OpBuilder &lb, Location l, Value step, ValueRange accs) {
        SmallVector<Value> next(accs.begin(), accs.end());
        body(lb, l, arith::MulIOp::create(lb, l, step, i32Const(lb, l, kStep)),
             next);
        scf::YieldOp::create(lb, l, next);
      });
  SmallVector<Value> out(loop.getResults());
  return buildVector(b, loc, out);
}
