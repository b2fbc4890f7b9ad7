//===- MmaOperands.cpp - which dots run on Hopper tensor cores ------------===//

#include "passes/analysis/MmaOperands.h"
#include "passes/analysis/PersistentTiles.h"

#include "ir/ElementTypes.h"
#include "passes/analysis/AxisInfo.h"
#include "passes/analysis/TensorMaps.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace kcc;

kcc::LoadTileOp kcc::mmaOperandLoad(Value v, bool &transposed) {
  transposed = false;
  if (auto tr = v.getDefiningOp<TransOp>()) {
    transposed = true;
    v = tr.getSrc();
  }
  return v.getDefiningOp<LoadTileOp>();
}

bool kcc::feedsDot(Value tile) {
  return llvm::any_of(tile.getUsers(), [](Operation *user) {
    if (isa<TransOp>(user))
      return llvm::any_of(user->getUsers(),
                          [](Operation *u) { return isa<DotOp>(u); });
    return isa<DotOp>(user);
  });
}

kcc::SmemLoadOp kcc::swizzledStageRead(Value v, bool &transposed) {
  transposed = false;
  if (auto tr = v.getDefiningOp<TransOp>()) {
    transposed = true;
    v = tr.getSrc();
  }
  auto read = v.getDefiningOp<SmemLoadOp>();
  if (!read || read.getSrc().getType().getSwizzle() == 0)
    return nullptr;
  return read;
}

bool kcc::registerOperand(Value a, Type elem) {
  auto t = cast<RankedTensorType>(a.getType());
  return t.getElementType() == elem && (elem.isF16() || elem.isBF16()) &&
         t.getShape()[0] % 64 == 0 && t.getShape()[1] % 16 == 0;
}

SmallVector<kcc::StagedDot> kcc::collectStagedDots(Operation *func,
                                                   bool registerA) {
  SmallVector<StagedDot> sites;
  func->walk([&](DotOp dot) {
    StagedDot s;
    s.dot = dot;
    s.a = swizzledStageRead(dot.getA(), s.aTransposed);
    s.b = swizzledStageRead(dot.getB(), s.bTransposed);
    // Both staged: the shared-memory form. B alone: the register-A form
    // where the target has one. Otherwise the generic path (mma.sync,
    // FMAs) reads the stage like any tile.
    if (s.b &&
        (s.a || (registerA &&
                 registerOperand(dot.getA(), s.b.getType().getElementType()))))
      sites.push_back(s);
  });
  return sites;
}

bool kcc::carriedOnlyThroughDot(DotOp dot, scf::ForOp loop) {
  auto arg = dyn_cast<BlockArgument>(dot.getC());
  if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 ||
      !arg.hasOneUse() || !dot->hasOneUse())
    return false;
  auto yield = dyn_cast<scf::YieldOp>(*dot->getUsers().begin());
  return yield && yield->getParentOp() == loop &&
         yield.getOperand(arg.getArgNumber() - 1) == dot.getResult();
}

std::optional<kcc::Promotion>
kcc::promotedIntoCarriedSum(Value product, Value acc, scf::ForOp loop) {
  Block *body = loop.getBody();
  // The accumulator is the same in every iteration (zeros): defined outside
  // the loop, or a splat or constant of such values.
  auto invariant = [&](Value v) {
    return v.getDefiningOp<arith::ConstantOp>() ||
           !loop->isAncestor(v.getParentBlock()->getParentOp());
  };
  Operation *init = acc.getDefiningOp();
  if (product.getParentBlock() != body ||
      !(invariant(acc) || (isa_and_nonnull<SplatOp, arith::ConstantOp>(init) &&
                           llvm::all_of(init->getOperands(), invariant))))
    return std::nullopt;
  Promotion p;
  llvm::DenseSet<Value> reached{product};
  for (Operation &op : body->without_terminator()) {
    if (llvm::none_of(op.getOperands(),
                      [&](Value v) { return reached.contains(v); }))
      continue;
    // Elementwise arithmetic only: a product feeding another product (an
    // attention's S) is not promoted.
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            op.getDialect()) ||
        op.getNumRegions() || op.getNumResults() != 1 ||
        !isa<RankedTensorType>(op.getResult(0).getType()))
      return std::nullopt;
    reached.insert(op.getResult(0));
    p.ops.insert(&op);
  }
  // One yielded value, into the iter_arg that only the promotion reads.
  Operation *yield = body->getTerminator();
  std::optional<unsigned> slot;
  for (Operation *op : p.ops)
    for (OpOperand &use : op->getResult(0).getUses()) {
      if (use.getOwner() == yield) {
        if (slot && *slot != use.getOperandNumber())
          return std::nullopt;
        slot = use.getOperandNumber();
      } else if (!p.ops.contains(use.getOwner())) {
        return std::nullopt;
      }
    }
  if (!slot || llvm::is_contained(yield->getOperands(), product))
    return std::nullopt;
  p.slot = *slot;
  Value sum = loop.getRegionIterArgs()[p.slot];
  if (sum.use_empty() || llvm::any_of(sum.getUsers(), [&](Operation *u) {
        return !p.ops.contains(u);
      }))
    return std::nullopt;
  return p;
}

bool kcc::readPastItsIteration(LoadTileOp load, scf::ForOp loop) {
  auto staged = [](Value v) {
    bool transposed;
    return mmaOperandLoad(v, transposed) || swizzledStageRead(v, transposed);
  };
  SmallVector<Value> reads{load.getResult()};
  for (Operation *user : load->getUsers())
    if (auto trans = dyn_cast<TransOp>(user))
      reads.push_back(trans.getResult());
  for (Value v : reads)
    for (Operation *user : v.getUsers()) {
      auto dot = dyn_cast<DotOp>(user);
      if (dot && (!staged(dot.getA()) || !staged(dot.getB()) ||
                  carriedOnlyThroughDot(dot, loop) ||
                  promotedIntoCarriedSum(dot.getResult(), dot.getC(), loop)))
        return true;
    }
  return false;
}

void kcc::eraseDotAndOperandReads(DotOp dot) {
  Value a = dot.getA(), b = dot.getB();
  dot.erase();
  for (Value v : {a, b})
    if (Operation *def = v.getDefiningOp(); def && def->use_empty()) {
      Value src = isa<TransOp>(def) ? def->getOperand(0) : Value();
      def->erase();
      if (src && src.use_empty())
        src.getDefiningOp()->erase();
    }
}

static std::string elemName(Type t) { return kcc::elementTypeName(t); }

/// Whether every use of `load` is as an operand of a dot (directly or through
/// trans); fills `dots`.
static bool onlyDotUses(LoadTileOp load, SmallVectorImpl<DotOp> &dots) {
  for (Operation *user : load->getUsers()) {
    if (auto tr = dyn_cast<TransOp>(user)) {
      for (Operation *u : tr->getUsers()) {
        auto dot = dyn_cast<DotOp>(u);
        if (!dot || dot.getC() == tr.getResult())
          return false;
        dots.push_back(dot);
      }
      continue;
    }
    auto dot = dyn_cast<DotOp>(user);
    if (!dot || dot.getC() == load.getResult())
      return false;
    dots.push_back(dot);
  }
  return true;
}

/// Why the accumulator of `dot` cannot stay in TMEM across its loop: it
/// must be a zero-initialized loop-carried value that only this dot reads
/// and whose result the loop yields back, so the loop itself carries
/// nothing (kcc-materialize-tcgen05-mma removes it from the iter_args).
static std::string tmemAccumulatorRefusal(kcc::DotOp dot) {
  auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
  auto arg = dyn_cast<BlockArgument>(dot.getC());
  if (!loop || !arg || arg.getOwner() != loop.getBody() ||
      arg.getArgNumber() == 0)
    return "the accumulator is not carried by the loop around the dot; "
           "kcc 0.1 keeps tcgen05 accumulators in TMEM only across a K loop";
  for (Value v : {dot.getA(), dot.getB()}) {
    bool transposed;
    kcc::LoadTileOp load = kcc::mmaOperandLoad(v, transposed);
    if (load && load->getParentOp() != loop)
      return "an operand is loaded outside the K loop; kcc 0.1 feeds "
             "tcgen05 from the loop's own TMA pipeline";
  }
  unsigned i = arg.getArgNumber() - 1;
  Value init = loop.getInitArgs()[i];
  if (auto splat = init.getDefiningOp<kcc::SplatOp>())
    init = splat.getOperand();
  if (!matchPattern(init, m_AnyZeroFloat()) && !matchPattern(init, m_Zero()))
    return "the accumulator does not start as zeros(...): kcc 0.1 does not "
           "copy an initial accumulator into TMEM";
  if (!arg.hasOneUse())
    return "the loop-carried accumulator is read outside the dot, but it "
           "lives in TMEM until the loop ends";
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (yield.getOperand(i) != dot.getResult() || !dot->hasOneUse())
    return "the dot's result is used in the loop other than as the next "
           "iteration's accumulator";
  return "";
}

/// The dot-level rules (instruction, types, shape), without the operands'
/// own users.
static std::string dotShapeRefusal(kcc::DotOp dot,
                                   const kcc::TargetModel &target) {
  const std::string &inst = target.mma.instruction;
  bool tcgen05 = inst == "tcgen05.mma";
  if (!hasStagedMma(target))
    return "target '" + target.name + "' has no wgmma (its tensor-core path "
           "is not implemented in kcc 0.1: the dot uses FMAs)";
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto b = cast<RankedTensorType>(dot.getB().getType());
  auto c = cast<RankedTensorType>(dot.getC().getType());
  Type elem = a.getElementType(), bElem = b.getElementType();
  // i8 x i8 -> i32: wgmma's s8 form, tcgen05's kind::i8.
  bool int8 = elem.isInteger(8);
  bool f8 = kcc::isFloat8(elem);
  if (!elem.isF16() && !elem.isBF16() && !int8 && !f8)
    return inst +
           " is used for f16, bf16, f8e4m3 and f8e5m2 inputs (and i8 with an "
           "i32 accumulator), not " +
           elemName(elem);
  // wgmma and tcgen05's kind::f8f6f4 multiply e4m3 by e5m2; the 16-bit and
  // integer forms take one type (the frontend makes them agree).
  if (f8 && !kcc::isFloat8(bElem))
    return "A is " + elemName(elem) + " but B is " + elemName(bElem) +
           "; cast both to 8-bit floats or both to a 16-bit type";
  if (int8 ? !c.getElementType().isInteger(32) : !c.getElementType().isF32())
    return inst + " is used with an " + (int8 ? "i32" : "f32") +
           " accumulator, not " + elemName(c.getElementType());
  int64_t m = a.getShape()[0], k = a.getShape()[1], n = b.getShape()[1];
  llvm::StringRef shapeName = kcc::mmaOperandName(elem);
  const kcc::MmaShape *shape = nullptr;
  for (const kcc::MmaShape &s : target.mma.shapes)
    if (s.a == shapeName &&
        (!shape || (n >= s.nMin && n <= s.nMax && (n - s.nMin) % s.nStep == 0)))
      shape = &s;
  if (!shape)
    return "target '" + target.name + "' lists no " + inst + " shape for " +
           elemName(elem);
  if (tcgen05 && m != 128)
    return "M = " + std::to_string(m) +
           ": kcc places tcgen05 accumulators in the 128 TMEM lanes, one row "
           "per lane, so M must be 128";
  if (m % shape->m != 0)
    return "M = " + std::to_string(m) + " is not a multiple of wgmma's M (" +
           std::to_string(shape->m) + ")";
  if (k % shape->k != 0)
    return "K = " + std::to_string(k) + " is not a multiple of " + inst +
           "'s K (" + std::to_string(shape->k) + ")";
  if (n < shape->nMin || n > shape->nMax || (n - shape->nMin) % shape->nStep)
    return "N = " + std::to_string(n) + " is not a " + inst + " N (" +
           std::to_string(shape->nMin) + ".." + std::to_string(shape->nMax) +
           " step " + std::to_string(shape->nStep) + ")";
  if (tcgen05) {
    unsigned wgs = kcc::tmemAccumulatorWarpgroups(n);
    if (n % (32 * wgs))
      return "N = " + std::to_string(n) + " is not a multiple of " +
             std::to_string(32 * wgs) + ": each of the " + std::to_string(wgs) +
             " warpgroups reading the accumulator from TMEM takes whole "
             "32-column chunks";
    return tmemAccumulatorRefusal(dot);
  }
  // Registers: a thread of a warpgroup holds N/2 f32 per 64-row block, and
  // kcc gives a CTA at most two warpgroups (M / 64 blocks share them).
  int64_t blocks = m / 64, perThread = (blocks + 1) / 2 * (n / 2);
  if (perThread > 128)
    return "the " + std::to_string(m) + "x" + std::to_string(n) +
           " accumulator needs " + std::to_string(perThread) +
           " registers per thread with two warpgroups (at most 128)";
  return "";
}

/// The rules on one operand's load, given the dot accepted.
static std::string loadRefusal(kcc::LoadTileOp load) {
  std::string why = kcc::tmaAccessRefusal(load);
  if (!why.empty())
    return why;
  auto tile = load.getType();
  int64_t inner = tile.getShape().back() *
                  kcc::getElementBytes(tile.getElementType());
  if (tile.getRank() != 2 || inner % kcc::kMmaSwizzleBytes != 0)
    return "the operand tile's innermost extent is " + std::to_string(inner) +
           " bytes; wgmma operands are read in whole 128-byte swizzle spans";
  return "";
}

bool kcc::hasStagedMma(const TargetModel &target) {
  return target.mma.instruction == "wgmma" ||
         target.mma.instruction == "tcgen05.mma";
}

std::string kcc::stagedMmaRefusal(DotOp dot, const TargetModel &target) {
  std::string why = dotShapeRefusal(dot, target);
  if (!why.empty())
    return why;
  bool int8 = kcc::isEightBitMmaOperand(
      cast<RankedTensorType>(dot.getA().getType()).getElementType());
  for (Value v : {dot.getA(), dot.getB()}) {
    bool transposed;
    LoadTileOp load = mmaOperandLoad(v, transposed);
    // PTX: wgmma transposes only 16-bit operands, so 8-bit ones are read
    // K-major: A as loaded ([M, K]), B as the transpose of a [N, K] tile.
    // kcc stages tcgen05's 8-bit operands the same way.
    const std::string &inst = target.mma.instruction;
    if (int8 && load && transposed != (v == dot.getB()))
      return v == dot.getA()
                 ? inst + " reads 8-bit operands K-major only: A must be a "
                          "load_tile of [M, K], not a transpose"
                 : inst + " reads 8-bit operands K-major only: write B as "
                          "trans(load_tile(bt, [BN, BK], ...)) of the [N, K] "
                          "tensor";
    // wgmma takes A from registers too: a tile computed there (attention's
    // P) needs no stage.
    if (!load && v == dot.getA() && target.mma.instruction == "wgmma" &&
        registerOperand(
            v, cast<RankedTensorType>(dot.getB().getType()).getElementType()))
      continue;
    if (!load)
      return "an operand is not a load_tile (or its transpose): " +
             target.mma.instruction +
             " reads operands from TMA-loaded shared memory";
    SmallVector<DotOp> dots;
    if (!onlyDotUses(load, dots))
      return "an operand tile is also used outside dots, which its swizzled "
             "shared-memory stage cannot serve";
    why = loadRefusal(load);
    if (!why.empty())
      return why;
  }
  return "";
}

std::string kcc::mmaOperandRefusal(LoadTileOp load,
                                   const TargetModel &target) {
  SmallVector<DotOp> dots;
  if (load->getUsers().empty() || !onlyDotUses(load, dots))
    return "not only used by dots";
  for (DotOp dot : dots) {
    std::string why = stagedMmaRefusal(dot, target);
    if (!why.empty())
      return why;
  }
  return "";
}

SmallVector<int64_t> kcc::mmaOperandBox(ArrayRef<int64_t> tile, Type elem) {
  SmallVector<int64_t> box(tile);
  box.back() = kMmaSwizzleBytes / getElementBytes(elem);
  return box;
}

std::string kcc::mmaStageRefusal(Operation *op, const TargetModel &target) {
  auto load = dyn_cast<LoadTileOp>(op);
  if (!load || !load->hasAttr(KccDialect::kMmaOperandAttr))
    return "";
  std::string why = mmaOperandRefusal(load, target);
  if (why.empty())
    return "";
  return "the tile is a dot operand whose tensor map has the 128-byte "
         "swizzle the tensor cores read, but on " +
         target.name + " the dot does not use them (" + why + ")";
}

SmemStoreOp kcc::epilogueStore(Value tile) {
  auto type = dyn_cast<RankedTensorType>(tile.getType());
  if (!type)
    return nullptr;
  SmemStoreOp staged;
  for (OpOperand &use : tile.getUses()) {
    auto store = dyn_cast<SmemStoreOp>(use.getOwner());
    if (!store || use.getOperandNumber() != 0)
      continue;
    SmemType stage = store.getDst().getType();
    if (stage.getShape() == type.getShape() &&
        stage.getElementType() == type.getElementType() &&
        (getConstantIntValue(store.getStage()) ||
         // A ping-pong consumer group's stage, chosen at the region's start.
         (store.getStage().getParentBlock() != store->getBlock() &&
          store.getStage().getParentRegion()->isAncestor(
              store->getParentRegion()))))
      staged = store;
  }
  if (!staged)
    return nullptr;
  auto branch = dyn_cast<scf::IfOp>(staged->getParentOp());
  for (Operation *user : tile.getUsers()) {
    if (user == staged)
      continue;
    Region *other = nullptr;
    if (branch)
      other = staged->getParentRegion() == &branch.getThenRegion()
                  ? &branch.getElseRegion()
                  : &branch.getThenRegion();
    if (!other || !other->isAncestor(user->getParentRegion()))
      return nullptr;
  }
  return staged;
}

bool kcc::storedInWindows(Value tile) {
  if (tile.use_empty())
    return false;
  return llvm::all_of(tile.getUses(), [](OpOperand &use) {
    auto store = dyn_cast<SmemStoreOp>(use.getOwner());
    return store && use.getOperandNumber() == 0 && store.getWindow() &&
           getConstantIntValue(store.getStage());
  });
}

/// Whether `v` is the same in every row or every column of a tile (so it
/// can be materialized in any layout from a small source).
static bool isSplatOrLineBroadcast(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<SplatOp>(def))
    return true;
  if (auto cst = dyn_cast<arith::ConstantOp>(def))
    if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
      return dense.isSplat();
  if (auto bc = dyn_cast<BroadcastOp>(def)) {
    ArrayRef<int64_t> src = bc.getSrc().getType().getShape();
    return src.size() == 2 && (src[0] == 1 || src[1] == 1);
  }
  return false;
}

/// An elementwise arith/math op of one tile result of `shape`.
static bool isElementwiseOf(Operation *op, ArrayRef<int64_t> shape) {
  Dialect *d = op->getDialect();
  if (!d || !isa<arith::ArithDialect, math::MathDialect>(d) ||
      isa<arith::ConstantOp>(op) || op->getNumResults() != 1 ||
      op->getNumRegions() != 0)
    return false;
  auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return rt && rt.getShape() == shape;
}

Value kcc::epilogueSource(Value stored) {
  // Back through elementwise ops along any tile operand: the epilogue is
  // checked forward from there (kcc::epilogueChain).
  Value v = stored;
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  while (Operation *def = v.getDefiningOp()) {
    if (!isElementwiseOf(def, shape))
      break;
    auto tile = llvm::find_if(def->getOperands(), [](Value operand) {
      return !isSplatOrLineBroadcast(operand);
    });
    if (tile == def->getOperands().end())
      return Value();
    v = *tile;
  }
  return v;
}

bool kcc::storesMmaAccumulator(StoreTileOp store,
                               ArrayRef<const TargetModel *> targets) {
  Value v = epilogueSource(store.getValue());
  if (!v)
    return false;
  auto result = dyn_cast<OpResult>(v);
  auto loop = result ? dyn_cast<scf::ForOp>(result.getOwner()) : nullptr;
  if (!loop)
    return false;
  // Stored without an epilogue: besides the store, only the stage write
  // kcc-materialize-tma-copies made of it.
  if (v == store.getValue()) {
    if (!llvm::all_of(v.getUsers(), [](Operation *user) {
          return isa<StoreTileOp, SmemStoreOp>(user);
        }))
      return false;
  } else {
    // Else the epilogue, all of it, ends in the stored tile.
    if (!v.hasOneUse())
      return false;
    SmallVector<Operation *> chain = epilogueChain(*v.getUses().begin());
    if (chain.empty() || chain.back()->getResult(0) != store.getValue())
      return false;
  }
  auto dot = loop.getYieldedValues()[result.getResultNumber()]
                 .getDefiningOp<DotOp>();
  return dot && llvm::any_of(targets, [&](const TargetModel *t) {
           return hasStagedMma(*t) && stagedMmaRefusal(dot, *t).empty();
         });
}

SmallVector<Operation *> kcc::epilogueChain(OpOperand &use, bool sourceShared) {
  Value from = use.get();
  auto shape = cast<RankedTensorType>(from.getType()).getShape();
  Operation *first = use.getOwner();
  if (!isElementwiseOf(first, shape))
    return {};
  // The elementwise ops after the first one in its block that read only
  // the accumulator, each other, splats and row/column broadcasts (an
  // activation reads its input twice: z / (1 + exp(-z))), in block order.
  // Where other epilogues read the accumulator too (one per column chunk:
  // pipeliner/EpilogueChunks.h), only the first op reads it.
  llvm::SmallPtrSet<Value, 16> inside = {from};
  SmallVector<Operation *> dag;
  if (sourceShared) {
    if (!llvm::all_of(first->getOperands(), [&](Value operand) {
          return operand == from || isSplatOrLineBroadcast(operand);
        }))
      return {};
    dag.push_back(first);
    inside = {first->getResult(0)};
    first = first->getNextNode();
  }
  for (Operation *op = first; op; op = op->getNextNode()) {
    if (!isElementwiseOf(op, shape))
      continue;
    bool reads = false, ok = true;
    for (Value operand : op->getOperands()) {
      if (inside.contains(operand))
        reads = true;
      else if (!isSplatOrLineBroadcast(operand))
        ok = false;
    }
    if (!reads || !ok)
      continue;
    dag.push_back(op);
    inside.insert(op->getResult(0));
  }
  // The first op reads something other than the accumulator, splats and
  // row/column broadcasts (acc + another dot's result): no chain.
  if (dag.empty())
    return {};
  // It must leave through its last op alone: every other value it makes
  // (and the accumulator) is used inside it only.
  auto usedInside = [&](Value v) {
    return llvm::all_of(v.getUsers(), [&](Operation *user) {
      return llvm::is_contained(dag, user);
    });
  };
  bool closed = sourceShared || usedInside(from);
  for (Operation *op : ArrayRef(dag).drop_back())
    closed = closed && usedInside(op->getResult(0));
  if (closed)
    return dag;
  // Otherwise the linear prefix: each op the only user of the previous one.
  SmallVector<Operation *> chain;
  if (sourceShared) {
    chain.push_back(dag.front());
    Value r = dag.front()->getResult(0);
    if (!r.hasOneUse())
      return chain;
    from = r;
    first = *r.getUsers().begin();
  }
  for (Operation *op = first; op;) {
    bool ok = isElementwiseOf(op, shape) &&
              llvm::all_of(op->getOperands(), [&](Value operand) {
                return operand == from || isSplatOrLineBroadcast(operand);
              });
    if (!ok)
      break;
    chain.push_back(op);
    Value r = op->getResult(0);
    if (!r.hasOneUse())
      break;
    from = r;
    op = *r.getUsers().begin();
  }
  return chain;
}

SmallVector<SmallVector<Operation *>> kcc::epilogueCopies(Value acc) {
  SmallVector<SmallVector<Operation *>> copies;
  if (acc.hasOneUse() || acc.use_empty())
    return copies;
  llvm::SmallPtrSet<Operation *, 32> seen;
  for (OpOperand &use : acc.getUses()) {
    SmallVector<Operation *> chain = epilogueChain(use, /*sourceShared=*/true);
    if (chain.empty())
      return {};
    for (Operation *op : chain)
      if (!seen.insert(op).second)
        return {};
    copies.push_back(std::move(chain));
  }
  return copies;
}
