//===- NVVMLowering.h - the NVIDIA part of kcc-convert-to-llvm ----*- C++ -*-===//
//
// NVVM target ops, the async IR (TMA, mbarriers, bulk groups, cp.async),
// wgmma, tcgen05/TMEM, mma.sync and the NVIDIA math lowerings, over the
// vendor-neutral lowering of backends/gpu.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_NVIDIA_NVVMLOWERING_H
#define KCC_BACKENDS_NVIDIA_NVVMLOWERING_H

#include "backends/gpu/LoweringUtils.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace kcc::nvidia {
using gpu::KccTypeConverter;
using gpu::TargetOps;

/// Registers the "nvidia" vendor of kcc-convert-to-llvm (idempotent).
void registerNVVMLowering();

/// NVVM: %tid.x, bar.sync 0, shfl.sync.bfly, nvvm.kernel + maxntid.
std::unique_ptr<TargetOps> createNVVMTargetOps();

/// The warp-specialized roles after splitRoles: which part of the CTA runs
/// the code being lowered at a block.
enum class Role { Whole, Producer, Consumer };
struct RoleInfo {
  Role role = Role::Whole;
  unsigned consumerThreads = 0; // threads 0 .. N-1 are the consumers
  unsigned groups = 1;          // ping-pong consumer groups, N / groups each
};
/// In a ping-pong consumer region: the group running (raw %tid.x divided by
/// the group's threads); null elsewhere.
mlir::Value consumerGroupAt(mlir::OpBuilder &b, mlir::Location loc);
RoleInfo roleAt(mlir::Block *block);
/// Rewrites each kcc.warp_specialize of `fn` into the branches the roles
/// run (setmaxnreg, then the producer on one thread of its warpgroup, the
/// consumers on threads 0 .. N-1); roleAt recognizes them.
void splitRoles(mlir::func::FuncOp fn, const TargetOps &ops);

/// The shared-memory address `offset` bytes into the kernel's buffer
/// (`user` is an op of the kernel), mbarrier `index` of a converted mbarrier
/// array, and `body` built so that only the thread issuing one-thread
/// operations runs it (thread 0; a warp-specialized producer is one thread
/// already) (AsyncToNVVM.cpp).
mlir::Value smemAt(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Operation *user, int64_t offset);
mlir::Value barrierAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bars,
                      mlir::Value index);
void onLeader(const mlir::ConversionPattern &pattern, mlir::OpBuilder &b,
              mlir::Location loc,
              llvm::function_ref<void(mlir::OpBuilder &)> body);
/// The address of stage `stage` (i32) of a converted shared buffer of `type`.
mlir::Value stageAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                    mlir::Value stage, SmemType type);

/// Tensor-core operand helpers (WarpgroupMmaToNVVM.cpp): the shared-window
/// address (i64) of a shared pointer; matrix descriptors; a side-effecting
/// inline asm with one output per type of `outputs` (none: an asm without
/// results).
mlir::Value sharedAddress(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value ptr3);
/// A 128-byte swizzled operand stage of `rows` rows, as wgmma and tcgen05
/// read it: the descriptor's LBO (K-major: unused, 16; MN-major: rows x 128,
/// the next 64-element block along M/N) and the byte offset of the K step
/// that starts at k0.
uint32_t swizzledOperandLbo(bool kMajor, int64_t rows);
int64_t swizzledKStepOffset(bool kMajor, int64_t rows, int64_t k0,
                            int64_t elemBytes);
/// The constant part (offsets, 128-byte swizzle; start 0) of a wgmma or
/// tcgen05 shared-memory descriptor, encoded by the target model's rules; an
/// error on `op` if they refuse it.
mlir::FailureOr<uint64_t> mmaDescriptorConstant(mlir::Operation *op,
                                                uint32_t lbo, uint32_t sbo,
                                                bool tcgen05);
/// A matrix descriptor `constant | ((addr + offset) & 0x3FFFF) >> 4` is
/// built once per operand (`lo`, i32: the start field plus the constant's
/// low word) and each K step adds its offset / 16 to the low word: one
/// 32-bit add per instruction instead of a 64-bit add, shift and masks. The
/// 14-bit start field cannot carry into the next field, since every slice
/// lies in the 256 KiB shared window; a run-time part of an offset (in
/// 16-byte units) is added to `lo` likewise.
struct MmaDescriptorBase {
  mlir::Value lo;
  uint64_t constant;
};
MmaDescriptorBase mmaDescriptorBase(mlir::OpBuilder &b, mlir::Location loc,
                                    uint64_t constant, mlir::Value addr);
/// The descriptor of the slice `offset` bytes (a multiple of 16) past the
/// base's.
mlir::Value mmaDescriptorAt(mlir::OpBuilder &b, mlir::Location loc,
                            const MmaDescriptorBase &base, int64_t offset);
llvm::SmallVector<mlir::Value>
asmWithOutputs(mlir::OpBuilder &b, mlir::Location loc,
               llvm::ArrayRef<mlir::Type> outputs, mlir::ValueRange operands,
               llvm::StringRef text, llvm::StringRef constraints);

/// kcc.dot with an mma.sync accumulator (DotToMmaSync.cpp).
void populateDotMmaSyncPatterns(KccTypeConverter &tc,
                                mlir::RewritePatternSet &patterns);
/// TMA, mbarriers, bulk groups, cp.async, shared stages (AsyncToNVVM.cpp).
void populateAsyncPatterns(KccTypeConverter &tc,
                           mlir::RewritePatternSet &patterns);
/// warpgroup_mma and its wait (WarpgroupMmaToNVVM.cpp).
void populateWarpgroupMmaPatterns(KccTypeConverter &tc,
                                  mlir::RewritePatternSet &patterns);
/// TMEM and tcgen05 (Tcgen05ToNVVM.cpp).
void populateTcgen05Patterns(KccTypeConverter &tc,
                             mlir::RewritePatternSet &patterns);
/// Transcendentals as NVVM approximations or libdevice calls
/// (MathToNVVM.cpp).
void populateMathPatterns(KccTypeConverter &tc,
                          mlir::RewritePatternSet &patterns,
                          mlir::ConversionTarget &target);
/// Casts to and from f8e4m3 / f8e5m2 as cvt pairs (Float8ToNVVM.cpp).
void populateFloat8Patterns(KccTypeConverter &tc,
                            mlir::RewritePatternSet &patterns,
                            mlir::ConversionTarget &target);

} // namespace kcc::nvidia

#endif // KCC_BACKENDS_NVIDIA_NVVMLOWERING_H
