//===- Decoder.h - an llvm.func decoded into a Program ----------*- C++ -*-===//
//
// Internal to sim/. The Decoder behind decodeFunction() (Program.h) walks one
// llvm.func once and appends an instruction per op; its pieces live in two
// files by the ops they decode:
//   Program.cpp          register slots, constants, the shared-memory layout
//                        and the LLVM dialect (arithmetic, memory, branches,
//                        intrinsics)
//   DecodeTargetOps.cpp  NVVM and ROCDL ops and kcc's inline assembly (ids,
//                        barriers, lane exchanges, matrix ops, wgmma, tcgen05,
//                        mbarriers, TMA and async copies)
//
//===----------------------------------------------------------------------===//
#ifndef KCC_SIM_DECODER_H
#define KCC_SIM_DECODER_H

#include "sim/Program.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace kcc::sim::detail {

struct TypeInfo {
  EK ek = EK::Int;
  unsigned bits = 0, lanes = 1, addrSpace = 0;
};

/// Scalars, pointers and vectors of them; nothing else lives in registers.
std::optional<TypeInfo> typeInfo(mlir::Type t);

/// Inline assembly holding a wgmma.mma_async (DecodeTargetOps.cpp parses it).
bool isWgmmaAsm(mlir::LLVM::InlineAsmOp op);

class Decoder {
public:
  Decoder(mlir::LLVM::LLVMFuncOp func, Program &p, DecodeError &err)
      : func(func), p(p), err(err) {}

  bool run();

private:
  mlir::LLVM::LLVMFuncOp func;
  Program &p;
  DecodeError &err;
  llvm::DenseMap<mlir::Value, uint32_t> slots;
  llvm::DenseMap<mlir::Block *, uint32_t> blockPC;
  std::vector<std::pair<uint32_t, mlir::Block *>> fixups;
  llvm::StringMap<uint64_t> sharedOffset;
  uint32_t nextSlot = 0;
  // Values that may hold a wgmma result not yet retired, and the ops
  // (other than register renames and wgmma) that read them.
  llvm::DenseSet<mlir::Value> accValues;
  llvm::DenseSet<mlir::Operation *> accReaders;
  // Register renames: values that name slots of another value instead of
  // copying them, and the block whose execution rewrites those slots (null:
  // nothing does).
  llvm::DenseMap<mlir::Value, mlir::Block *> renames;

  // Program.cpp: slots, constants, shared memory, the LLVM dialect.
  bool fail(mlir::Operation *op, const llvm::Twine &msg) {
    err.message = msg.str();
    err.loc = op->getLoc();
    return false;
  }
  static bool isConstantLike(mlir::Operation *op);
  std::optional<TypeInfo> info(mlir::Value v, mlir::Operation *op);
  bool assign(mlir::Value v, mlir::Operation *where);
  bool assign(mlir::Value v, mlir::LLVM::LLVMFuncOp f) {
    return assign(v, f.getOperation());
  }
  uint32_t slot(mlir::Value v) { return slots.lookup(v); }
  mlir::Block *rewrittenIn(mlir::Value v);
  bool rename(mlir::Value result, mlir::Value source, unsigned offset);
  bool insertInPlace(mlir::LLVM::InsertElementOp op);
  bool constantLanesUnread(mlir::LLVM::InsertElementOp op);
  bool layoutShared();
  bool decodeConstant(mlir::Operation *op);
  static uint8_t alignLog2(std::optional<uint64_t> align, const Inst &in);
  uint32_t opIndex(mlir::Operation *op) {
    p.ops.push_back(op);
    return p.ops.size() - 1;
  }
  Inst &emit(Opc opc, mlir::Operation *op) {
    Inst in;
    in.opc = opc;
    in.op = opIndex(op);
    p.code.push_back(in);
    return p.code.back();
  }
  Inst *emitResult(Opc opc, mlir::Operation *op);
  uint32_t target(mlir::Block *dest, mlir::OperandRange args);
  bool decodeOp(mlir::Operation *op);
  bool decodeGEP(mlir::LLVM::GEPOp gep);
  bool decodeSwitch(mlir::LLVM::SwitchOp sw);
  bool decodeCallIntrinsic(mlir::LLVM::CallIntrinsicOp call);

  // DecodeTargetOps.cpp: NVVM, ROCDL and inline assembly.
  void findWgmmaAccumulators();
  bool decodeWgmma(mlir::LLVM::InlineAsmOp op);
  bool decodeLdMatrix(mlir::NVVM::LdMatrixOp ld);
  bool decodeMmaSync(mlir::NVVM::MmaOp mma);
  bool decodeMfma(mlir::Operation *op, unsigned kind);
  bool decodeTcgen05(mlir::LLVM::InlineAsmOp op);
  bool decodeOperandFence(mlir::LLVM::InlineAsmOp op);
  bool decodeTargetOp(mlir::Operation *op, llvm::StringRef name);
  bool decodeAsyncOp(mlir::Operation *op, llvm::StringRef name);
  std::optional<bool> decodeClusterOp(mlir::Operation *op,
                                      llvm::StringRef name);
};

} // namespace kcc::sim::detail

#endif // KCC_SIM_DECODER_H
