//===- MmaOperands.h - which dots read TMA stages on tensor cores -*- C++
//-*-===//
//
// Shared by kcc-add-tensor-maps (dot operands get 128-byte swizzled tensor
// maps), the TMA passes (which land them in swizzled stages) and
// kcc-materialize-warpgroup-mma / kcc-materialize-tcgen05-mma (which turn
// the dot into wgmma on Hopper, tcgen05.mma on Blackwell): the rules that
// decide whether a kcc.dot can use the target's main tensor-core
// instruction, judged on the tile IR and the target model's [mma] table.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_PASSES_MMAOPERANDS_H
#define KCC_PASSES_MMAOPERANDS_H

#include "ir/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kcc {
struct TargetModel;

/// Bytes of the swizzle span wgmma operands use (one 128-byte row per
/// swizzle row; 8 rows form a 1024-byte pattern).
constexpr int64_t kMmaSwizzleBytes = 128;

/// The load_tile behind dot operand `v` (the tile itself or trans of it), and
/// whether the dot sees it transposed; null if `v` is anything else.
LoadTileOp mmaOperandLoad(mlir::Value v, bool &transposed);

/// Whether some dot reads `tile` as an operand (directly or through trans).
bool feedsDot(mlir::Value tile);

/// Whether `target`'s main tensor-core instruction reads its operands from
/// swizzled TMA stages (wgmma, tcgen05.mma).
bool hasStagedMma(const TargetModel &target);

/// Why `dot` cannot run on `target`'s staged tensor-core instruction (wgmma
/// or tcgen05.mma; empty: it can). Checks the target's instruction and
/// shapes, the element types (f16/bf16 inputs, f32 accumulator), for
/// tcgen05 the accumulator's life in TMEM, and that both operands are
/// TMA-able tile loads used only by such dots whose innermost extent is
/// whole 128-byte swizzle spans.
std::string stagedMmaRefusal(DotOp dot, const TargetModel &target);

/// Why `load` (a load_tile) cannot be a staged operand on `target`: every
/// user must be a dot that stagedMmaRefusal accepts (directly or through
/// trans).
std::string mmaOperandRefusal(LoadTileOp load, const TargetModel &target);

/// The TMA box of a wgmma operand tile: its innermost extent cut to one
/// 128-byte swizzle span.
llvm::SmallVector<int64_t> mmaOperandBox(llvm::ArrayRef<int64_t> tile,
                                         mlir::Type elem);

/// Why the TMA passes for `target` must not copy `op` (a load_tile marked
/// kcc.mma_operand whose dots do not run as wgmma on `target`: its swizzled
/// map serves another target); empty otherwise.
std::string mmaStageRefusal(mlir::Operation *op, const TargetModel &target);

/// Warpgroups that run a wgmma accumulator of `rows` rows: two when its
/// 64-row blocks split evenly between two, else one. A kernel uses the fewest
/// any of its accumulators allows (kcc-materialize-warpgroup-mma; the
/// warp-specialized pipeline sizes its empty barriers by the same rule).
inline unsigned accumulatorWarpgroups(int64_t rows) {
  return rows % 128 == 0 ? 2 : 1;
}

/// The 128-byte swizzled stage read behind dot operand `v` (a kcc.smem_load
/// of it, optionally under kcc.trans, which sets `transposed`); null if `v`
/// is anything else.
SmemLoadOp swizzledStageRead(mlir::Value v, bool &transposed);

/// A dot whose operands are both read from 128-byte swizzled stages (the
/// TMA passes landed them), or, with `a` null, whose B is and whose A is a
/// tile computed in registers (wgmma's register-A form): what the
/// tensor-core passes rewrite.
struct StagedDot {
  DotOp dot;
  SmemLoadOp a, b;
  bool aTransposed = false, bTransposed = false;
  bool registerA() const { return !a; }
};

/// Whether `a` can be wgmma's register A operand beside a staged B of
/// `elem`: a 16-bit tile of the same type in whole 64 x 16 fragments,
/// computed in registers (a stage read goes through the register-A form
/// only if nothing staged it for wgmma; kcc::stagedMmaRefusal).
bool registerOperand(mlir::Value a, mlir::Type elem);

/// The kernel's staged dots. With `registerA` (wgmma), a dot whose B alone
/// reached a stage and whose A is a 16-bit tile computed in registers is
/// one too (StagedDot::registerA). Any other dot with one staged operand is
/// left to the generic path, which reads that stage like any tile.
llvm::SmallVector<StagedDot> collectStagedDots(mlir::Operation *func,
                                               bool registerA);

/// Erases `dot`, then its operand reads (smem_load, and trans of it) that
/// nothing else uses.
void eraseDotAndOperandReads(DotOp dot);

/// Whether `dot`'s tensor-core group may stay in flight across iterations of
/// `loop`: its accumulator is a loop-carried value that only the dot reads,
/// and its result only goes back into it (a GEMM's K loop).
bool carriedOnlyThroughDot(DotOp dot, mlir::scf::ForOp loop);

/// A product promoted into a running sum (FP8 block scales: `acc = acc +
/// dot(a, b) * s` per K block): what reads it in `loop`'s body.
struct Promotion {
  unsigned slot = 0; // the iter_arg of the running sum
  /// The ops that read the product, directly or not, in body order:
  /// elementwise arith and math ops, none read by anything else than each
  /// other and the yield.
  llvm::SetVector<mlir::Operation *> ops;
};

/// Whether `product` (a dot's result in `loop`'s body, computed from an
/// accumulator defined outside the loop) is only added into one loop-carried
/// value that nothing else in the body reads: then the product may retire in
/// the next iteration (kcc-defer-block-promotion issues the next product
/// before promoting it).
std::optional<Promotion> promotedIntoCarriedSum(mlir::Value product,
                                                mlir::Value acc,
                                                mlir::scf::ForOp loop);

/// Whether a dot that reads `load` (a load_tile of `loop`'s body, feeding
/// dots) may still read its stage after the iteration ends: one whose group
/// stays in flight (carriedOnlyThroughDot), or whose A is computed in
/// registers (kcc-defer-register-a-mma may issue it one iteration late), or
/// whose product is promoted into a running sum (promotedIntoCarriedSum). A
/// dot of two staged operands whose result the iteration reads (attention's
/// S = Q K^T) retires in its iteration, and its stages can be released
/// there.
bool readPastItsIteration(LoadTileOp load, mlir::scf::ForOp loop);

/// Warpgroups that read a 128 x N tcgen05 accumulator from TMEM: two when
/// N >= 128 (at most 128 registers per thread), else one.
inline unsigned tmemAccumulatorWarpgroups(int64_t n) {
  return n >= 128 ? 2 : 1;
}

/// The smem_store through which `tile` (a wgmma accumulator leaving the
/// accumulator layout, or its cast) can be staged for a TMA store straight
/// from the accumulator registers; null if it cannot. It can when one user
/// stores it whole into a stage at a constant index and every
/// other user sits in the other branch of the scf.if around that store (the
/// masked-store fallback), so it may relayout through the same stage while
/// no TMA store reads it. kcc-materialize-warpgroup-mma stages such tiles;
/// the pipeliner's shared-memory budget keeps no relayout scratch for them.
SmemStoreOp epilogueStore(mlir::Value tile);

/// Whether every user of `tile` stores a window of it into a stage at a
/// constant index: an epilogue copied out in column chunks (the whole tile
/// never sits in shared memory), which needs no relayout either.
bool storedInWindows(mlir::Value tile);

/// The tile an elementwise epilogue that ends in `stored` starts from,
/// back through elementwise ops along their one operand that is not a splat
/// or row/column broadcast (`stored` itself when no op computes it; null
/// when an op reads splats and broadcasts only).
mlir::Value epilogueSource(mlir::Value stored);

/// Whether `store` writes a tile computed from a K loop's MMA accumulator
/// by an elementwise epilogue (kcc::epilogueChain) alone, with the dot on
/// the staged tensor-core path of one of `targets`: its registers then go
/// straight into the TMA store's stage, which kcc-add-tensor-maps swizzles
/// so those stores do not conflict in shared-memory banks.
bool storesMmaAccumulator(StoreTileOp store,
                          llvm::ArrayRef<const TargetModel *> targets);

/// The elementwise epilogue that starts at `use` of a wgmma accumulator (a
/// bias add, an activation, the cast to the output type), in block order:
/// arith/math ops that read the accumulator, each other, splats, splat
/// constants and row/column broadcasts ([1, N] or [M, 1] tiles), and whose
/// values are used only inside it but for the last op's (an activation may
/// read its input twice); where no such closed set exists, the chain of
/// ops each the only user of the previous one. Those ops can run in the
/// accumulator layout, so the tile leaves it only after the last one.
/// Empty when the first user is not one. With `sourceShared`, other
/// epilogues read the accumulator too (a copy per column chunk,
/// pipeliner/EpilogueChunks.h): only the op of `use` reads it in this one.
llvm::SmallVector<mlir::Operation *> epilogueChain(mlir::OpOperand &use,
                                                   bool sourceShared = false);

/// The epilogues of accumulator `acc`, one per use, when it has several
/// and each starts one (kcc::epilogueChain with `sourceShared`) that no
/// other one shares an op with; empty otherwise.
llvm::SmallVector<llvm::SmallVector<mlir::Operation *>>
epilogueCopies(mlir::Value acc);

} // namespace kcc

#endif // KCC_PASSES_MMAOPERANDS_H
