//===- AddSplitKBuilds.cpp - split-K builds for skinny products -----------===//
//
// kcc-add-split-k-builds (Passes.td). A GEMM whose output has few tiles
// (decode: a handful of token rows against a wide weight) leaves most
// multiprocessors idle while each CTA walks the whole K loop. The kernel
// gets one more build that the launch runs instead when the grid is small
// and the loop long: its grid has a third axis of S slices, each running one
// contiguous slice of the K loop and storing its f32 accumulator to a
// workspace, then drawing a ticket for its output tile; the slice that draws
// the last ticket sums the S partial tiles in slice order and runs the
// user's epilogue unchanged (stream-K's fix-up in one launch, as CUTLASS's
// and cuBLAS's split-K kernels do). The sum's order does not depend on which
// slice finishes last, so the result is the same bits on every run with the
// same S (the launch picks S from the sizes alone). The last slice puts its
// ticket back to zero, so the tickets are zero between launches (the
// runtime zeroes a workspace when it allocates it).
//
// Only the shape the transformation keeps exact is taken; every other
// kernel with a product gets kcc.split_k_refused (why, for --report).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/HostExpr.h"
#include "passes/transforms/KernelBuilds.h"

#include "ir/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCADDSPLITKBUILDS
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

/// The names of the arguments a split build appends (a tensor<f32, 2>, the
/// split count and the tickets, one i32 per output tile); the stubs pass
/// them.
constexpr llvm::StringLiteral kWorkspace = "kcc_ws";
constexpr llvm::StringLiteral kSplits = "kcc_splits";
constexpr llvm::StringLiteral kTickets = "kcc_tickets";

/// A kernel in the shape split-K keeps exact.
struct SplitShape {
  scf::ForOp loop;
  unsigned acc = 0;       // the accumulator's iter_arg
  kcc::StoreTileOp store; // the one store, after the loop
  int64_t step = 1;
  std::string trips, rows, cols; // C over the parameters
  std::string tiles;             // the output's tiles: tickets it draws
};

bool writes(Operation *op) {
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
    return effects.hasEffect<MemoryEffects::Write>();
  // Unknown effects: assume the worst unless it is pure by trait.
  return !isMemoryEffectFree(op) &&
         !isa<scf::ForOp, scf::IfOp, scf::YieldOp>(op);
}

/// Whether iter_arg `i` of `loop` only computes its own next value (its
/// result unused, its uses pure ops of the body that end in its yield
/// operand): a slice of the loop leaves it wrong, and nothing reads it.
bool feedsOnlyItself(scf::ForOp loop, unsigned i) {
  if (!loop.getResult(i).use_empty())
    return false;
  Operation *yield = loop.getBody()->getTerminator();
  SmallVector<Value> work = {loop.getRegionIterArgs()[i]};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (user == yield) {
        if (use.getOperandNumber() != i)
          return false;
        continue;
      }
      if (user->getBlock() != loop.getBody() || user->getNumRegions() ||
          !isMemoryEffectFree(user))
        return false;
      if (seen.insert(user).second)
        llvm::append_range(work, user->getResults());
    }
  }
  return true;
}

/// The kernel's split shape, or why it has none ("" with a null loop: no
/// product at all, nothing to say).
FailureOr<SplitShape> splitShape(func::FuncOp func, std::string &why) {
  Block &entry = func.getBody().front();
  SmallVector<scf::ForOp> loops;
  for (auto loop : entry.getOps<scf::ForOp>())
    if (loop->walk([](kcc::DotOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      loops.push_back(loop);
  if (loops.empty())
    return failure(); // no K loop: not a GEMM
  if (loops.size() > 1) {
    why = "the kernel has more than one loop of products";
    return failure();
  }
  auto grid = func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kGridAttr);
  auto z =
      grid && grid.size() == 3 ? dyn_cast<StringAttr>(grid[2]) : StringAttr();
  if (!z || (z.getValue() != "1" && !z.getValue().empty())) {
    why = "its grid has a third axis (the splits take it)";
    return failure();
  }
  SplitShape s;
  s.loop = loops.front();
  scf::ForOp loop = s.loop;
  // The accumulator: the one value the loop's products yield. Anything
  // else it carries must feed only itself (pointer tiles advanced a block
  // per iteration, which the lifted loads no longer read).
  Operation *yield = loop.getBody()->getTerminator();
  std::optional<unsigned> accIndex;
  for (unsigned i = 0, e = loop.getNumRegionIterArgs(); i < e; ++i) {
    if (yield->getOperand(i).getDefiningOp<kcc::DotOp>()) {
      if (accIndex) {
        why = "its loop carries more than one accumulator";
        return failure();
      }
      accIndex = i;
    } else if (!feedsOnlyItself(loop, i)) {
      why = "its loop carries values besides one accumulator";
      return failure();
    }
  }
  if (!accIndex) {
    why = "its loop's accumulator is not updated by dot(a, b, acc) alone";
    return failure();
  }
  s.acc = *accIndex;
  auto acc = dyn_cast<RankedTensorType>(loop.getResult(s.acc).getType());
  if (!acc || acc.getRank() != 2 || !acc.getElementType().isF32()) {
    why = "its loop's accumulator is not a 2-D f32 tile";
    return failure();
  }
  // acc = dot(a, b, acc) chains only: the partial sums add up.
  Value yielded = yield->getOperand(s.acc);
  while (auto dot = yielded.getDefiningOp<kcc::DotOp>())
    yielded = dot.getC();
  if (yielded != loop.getRegionIterArgs()[s.acc]) {
    why = "its loop's accumulator is not updated by dot(a, b, acc) alone";
    return failure();
  }
  auto init = loop.getInitArgs()[s.acc].getDefiningOp<kcc::SplatOp>();
  auto zero = init ? init.getSrc().getDefiningOp<arith::ConstantOp>()
                   : arith::ConstantOp();
  auto zeroValue = zero ? dyn_cast<FloatAttr>(zero.getValue()) : FloatAttr();
  if (!zeroValue || !zeroValue.getValue().isZero()) {
    why = "its accumulator does not start at zeros";
    return failure();
  }
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0) {
    why = "its loop's step is not a positive constant";
    return failure();
  }
  s.step = *step;
  ArrayAttr names =
      func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kArgNamesAttr);
  std::string lb = kcc::hostExpr(loop.getLowerBound(), names);
  std::string ub = kcc::hostExpr(loop.getUpperBound(), names);
  if (lb.empty() || ub.empty()) {
    why = "its loop's bounds are not computed from integer parameters and "
          "constants alone";
    return failure();
  }
  s.trips =
      llvm::formatv("((({1}) - ({0}) + {2} - 1) / {2})", lb, ub, *step).str();
  // No write but the output tile's store, after the loop.
  for (Operation &op : entry) {
    if (&op == loop.getOperation())
      continue;
    bool after = loop->isBeforeInBlock(&op);
    WalkResult w = op.walk([&](Operation *inner) {
      auto store = dyn_cast<kcc::StoreTileOp>(inner);
      if (store && after && !s.store && inner == &op) {
        s.store = store;
        return WalkResult::advance();
      }
      return writes(inner) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (w.wasInterrupted()) {
      why = after ? "it writes memory after its loop other than one "
                    "store_tile of the result"
                  : "it writes memory before its loop";
      return failure();
    }
  }
  WalkResult inLoop = loop.getBody()->walk([](Operation *op) {
    return writes(op) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (inLoop.wasInterrupted()) {
    why = "its loop writes memory";
    return failure();
  }
  if (!s.store) {
    why = "it has no store_tile of the result after its loop";
    return failure();
  }
  auto stored = cast<RankedTensorType>(s.store.getValue().getType());
  if (stored.getShape() != acc.getShape() || s.store.getDims().size() != 2) {
    why = "its store_tile does not write a 2-D tile of the accumulator's "
          "shape";
    return failure();
  }
  // Where the output tile is: known before the loop (the reduce build reads
  // the partial sums there). Pure arithmetic on values from before the loop
  // (`program_id(1)` written in the store, after the loop) moves up.
  DominanceInfo dom(func);
  std::function<bool(Value, int)> hoist = [&](Value v, int depth) {
    if (dom.properlyDominates(v, loop))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || depth > 16 || def->getBlock() != loop->getBlock() ||
        def->getNumRegions() || !isMemoryEffectFree(def) ||
        !llvm::all_of(def->getOperands(),
                      [&](Value o) { return hoist(o, depth + 1); }))
      return false;
    def->moveBefore(loop);
    return true;
  };
  for (Value v : llvm::concat<Value>(s.store.getDims(), s.store.getCoords()))
    if (!hoist(v, 0)) {
      why = "its output tile's position is computed after its loop";
      return failure();
    }
  s.rows = kcc::hostExpr(s.store.getDims()[0], names);
  s.cols = kcc::hostExpr(s.store.getDims()[1], names);
  if (s.rows.empty() || s.cols.empty()) {
    why = "its output tensor's sizes are not parameters";
    return failure();
  }
  // Each split's slab of the workspace is a whole number of tiles tall.
  int64_t bm = acc.getShape()[0], bn = acc.getShape()[1];
  s.tiles = llvm::formatv("((({0}) + {2} - 1) / {2} * ((({1}) + {3} - 1) / "
                          "{3}))",
                          s.rows, s.cols, bm, bn)
                .str();
  s.rows = llvm::formatv("((({0}) + {1} - 1) / {1} * {1})", s.rows, bm).str();
  return s;
}

/// Appends the workspace tensor (kcc_ws, its sizes and row stride), the
/// split count and the tickets to `func`; returns the first new argument's
/// index.
unsigned appendSplitArguments(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type();
  unsigned first = func.getNumArguments();
  Location loc = func.getLoc();
  auto ptr = kcc::PtrType::get(ctx, b.getF32Type(), 1);
  auto tickets = kcc::PtrType::get(ctx, i32, 1);
  SmallVector<Type> types = {ptr, i32, i32, i32, i32, tickets};
  SmallVector<DictionaryAttr> attrs(types.size(), b.getDictionaryAttr({}));
  attrs[0] = b.getDictionaryAttr(
      {b.getNamedAttr(kcc::KccDialect::kAlignAttr, b.getI64IntegerAttr(16)),
       b.getNamedAttr(kcc::KccDialect::kTensorRankAttr,
                      b.getI32IntegerAttr(2))});
  attrs[5] = b.getDictionaryAttr(
      {b.getNamedAttr(kcc::KccDialect::kAlignAttr, b.getI64IntegerAttr(16))});
  // The stub rounds the row stride to 16 bytes (the tensor contract).
  attrs[3] = b.getDictionaryAttr({b.getNamedAttr(
      kcc::KccDialect::kDivisibilityAttr, b.getI64IntegerAttr(4))});
  SmallVector<unsigned> at(types.size(), first);
  SmallVector<Location> locs(types.size(), loc);
  if (failed(func.insertArguments(at, types, attrs, locs)))
    llvm::report_fatal_error("kcc-add-split-k-builds: cannot add arguments");
  SmallVector<Attribute> names;
  if (auto old = func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kArgNamesAttr))
    names.assign(old.begin(), old.end());
  for (StringRef n : {StringRef(kWorkspace), StringRef("kcc_ws_dim0"),
                      StringRef("kcc_ws_dim1"), StringRef("kcc_ws_stride0"),
                      StringRef(kSplits), StringRef(kTickets)})
    names.push_back(b.getStringAttr(n));
  func->setAttr(kcc::KccDialect::kArgNamesAttr, b.getArrayAttr(names));
  return first;
}

/// ceil(a / d) for a >= 0, d > 0 as the kernel computes it: (a + d - 1) / d.
Value ceilDiv(OpBuilder &b, Location loc, Value a, Value d, Value one) {
  return arith::DivSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, arith::AddIOp::create(b, loc, a, d), one),
      d);
}

/// The workspace tile of split `split` where the kernel stores its output
/// tile: rows split * R + coords[0] (R tiles per split), column coords[1].
SmallVector<Value> workspaceCoords(OpBuilder &b, Location loc,
                                   kcc::StoreTileOp store, int64_t bm,
                                   Value split) {
  Value tile = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(bm));
  Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
  Value rows = store.getDims()[0];
  Value tilesPerSplit = ceilDiv(b, loc, rows, tile, one);
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, split, tilesPerSplit),
      store.getCoords()[0]);
  return {row, store.getCoords()[1]};
}

/// What moving one f32 partial tile costs in iterations of `loop`: its
/// bytes over the bytes the loop's tile loads read per iteration
/// (kcc::rt::splitKSlices weighs slices with it).
std::string storeCost(scf::ForOp loop, unsigned acc) {
  auto bytes = [](Type t) -> int64_t {
    auto tile = dyn_cast<RankedTensorType>(t);
    if (!tile || !tile.hasStaticShape())
      return 0;
    return tile.getNumElements() *
           std::max<int64_t>(1, tile.getElementTypeBitWidth() / 8);
  };
  int64_t perIteration = 0;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<kcc::LoadTileOp, kcc::LoadOp>(op))
      perIteration += bytes(op->getResult(0).getType());
  });
  double cost =
      perIteration ? double(bytes(loop.getResult(acc).getType())) / perIteration
                   : 1.0;
  return llvm::formatv("{0:F3}", cost).str();
}

struct AddSplitKBuilds : kcc::impl::KccAddSplitKBuildsBase<AddSplitKBuilds> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (!func->hasAttr(kcc::KccDialect::kKernelAttr) || func.isExternal() ||
          kcc::isLaunchedBuild(func))
        continue;
      std::string why;
      FailureOr<SplitShape> shape = splitShape(func, why);
      if (failed(shape)) {
        if (!why.empty())
          func->setAttr(kcc::KccDialect::kSplitKRefusedAttr,
                        StringAttr::get(&getContext(), why));
        continue;
      }
      if (failed(addSplitBuild(func)))
        return signalPassFailure();
    }
  }

  /// The split shape of a copy of the kernel (the same ops, cloned).
  static SplitShape shapeOf(func::FuncOp copy) {
    std::string why;
    FailureOr<SplitShape> s = splitShape(copy, why);
    if (failed(s))
      llvm::report_fatal_error("kcc-add-split-k-builds: a copy lost the "
                               "kernel's split shape");
    return *s;
  }

  /// A copy of `func` named <name><suffix>, its locations tagged, with the
  /// split arguments appended from `first` on.
  static FailureOr<func::FuncOp>
  cloneSplitBuild(func::FuncOp func, StringRef suffix, unsigned &first) {
    FailureOr<func::FuncOp> built = kcc::cloneBuild(
        func, suffix, kcc::KccDialect::kSplitKOfAttr, "a split-K build");
    if (failed(built))
      return failure();
    kcc::tagBuildLocations(*built, kcc::kSplitKLocPrefix);
    first = appendSplitArguments(*built);
    return built;
  }

  LogicalResult addSplitBuild(func::FuncOp func) {
    unsigned first = 0;
    FailureOr<func::FuncOp> built = cloneSplitBuild(func, "__splitk", first);
    if (failed(built))
      return failure();
    func::FuncOp copy = *built;
    SplitShape s = shapeOf(copy);
    Builder attrs(&getContext());
    SmallVector<Attribute> grid(
        copy->getAttrOfType<ArrayAttr>(kcc::KccDialect::kGridAttr).getValue());
    grid[2] = attrs.getStringAttr(kSplits);
    copy->setAttr(kcc::KccDialect::kGridAttr, attrs.getArrayAttr(grid));
    copy->setAttr(
        kcc::KccDialect::kSplitKAttr,
        attrs.getDictionaryAttr(
            {attrs.getNamedAttr("role", attrs.getStringAttr("partial")),
             attrs.getNamedAttr("trips", attrs.getStringAttr(s.trips)),
             attrs.getNamedAttr("rows", attrs.getStringAttr(s.rows)),
             attrs.getNamedAttr("cols", attrs.getStringAttr(s.cols)),
             attrs.getNamedAttr("tiles", attrs.getStringAttr(s.tiles)),
             attrs.getNamedAttr(
                 "store", attrs.getStringAttr(storeCost(s.loop, s.acc)))}));

    // This split's slice of the iterations: [z * chunk, min(T, z*chunk +
    // chunk)), chunk = ceil(T / S).
    scf::ForOp loop = s.loop;
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    Value z = kcc::ProgramIdOp::create(b, loc, b.getI32Type(), uint32_t(2));
    Value step = loop.getStep(), lb = loop.getLowerBound();
    Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
    // At least one split: the launch passes S >= 1; the clamp keeps the
    // bounds defined for any S (the async verifier chooses S freely).
    Value splits =
        arith::MaxSIOp::create(b, loc, copy.getArgument(first + 4), one);
    Value trips =
        ceilDiv(b, loc, arith::SubIOp::create(b, loc, loop.getUpperBound(), lb),
                step, one);
    Value chunk = ceilDiv(b, loc, trips, splits, one);
    // Slices past the last iteration run none (begin = end = T).
    Value begin = arith::MinSIOp::create(
        b, loc, trips, arith::MulIOp::create(b, loc, z, chunk));
    Value end = arith::MinSIOp::create(
        b, loc, trips, arith::AddIOp::create(b, loc, begin, chunk));
    loop.setLowerBound(arith::AddIOp::create(
        b, loc, lb, arith::MulIOp::create(b, loc, begin, step)));
    loop.setUpperBound(arith::AddIOp::create(
        b, loc, lb, arith::MulIOp::create(b, loc, end, step)));

    // The epilogue (every op after the loop but the return) moves under the
    // last slice's branch.
    Block &entry = copy.getBody().front();
    SmallVector<Operation *> epilogue;
    for (Operation &op :
         llvm::make_range(std::next(loop->getIterator()), entry.end()))
      if (!op.hasTrait<OpTrait::IsTerminator>())
        epilogue.push_back(&op);

    // Its partial sums to the workspace.
    kcc::StoreTileOp store = s.store;
    b.setInsertionPointAfter(loop);
    auto accType = cast<RankedTensorType>(loop.getResult(s.acc).getType());
    int64_t bm = accType.getShape()[0], bn = accType.getShape()[1];
    Location sloc = store.getLoc();
    auto workspace = [&](OpBuilder &ob, Location l, Value split) {
      return workspaceCoords(ob, l, store, bm, split);
    };
    kcc::StoreTileOp::create(
        b, sloc, loop.getResult(s.acc), copy.getArgument(first),
        ValueRange{copy.getArgument(first + 1), copy.getArgument(first + 2)},
        ValueRange{copy.getArgument(first + 3)}, workspace(b, sloc, z));

    // The tile's ticket: tile row * column tiles + tile column.
    Value cols = store.getDims()[1];
    Value tileN = arith::ConstantOp::create(b, sloc, b.getI32IntegerAttr(bn));
    Value colTiles = ceilDiv(b, sloc, cols, tileN, one);
    Value id = arith::AddIOp::create(
        b, sloc, arith::MulIOp::create(b, sloc, store.getCoords()[0], colTiles),
        store.getCoords()[1]);
    Value ticket =
        kcc::AddPtrOp::create(b, sloc, copy.getArgument(first + 5), id);
    // acq_rel: the partial tile is published before the ticket, and the
    // last slice reads the others' after it (kcc-order-program-atomics
    // orders the TMA copies around it too).
    Value drawn = kcc::AtomicRMWOp::create(
        b, sloc, kcc::AtomicKind::Add, ticket, one, Value(),
        kcc::MemoryOrder::AcqRel, kcc::MemoryScope::Gpu);
    Value last =
        arith::CmpIOp::create(b, sloc, arith::CmpIPredicate::eq, drawn,
                              arith::SubIOp::create(b, sloc, splits, one));
    auto branch = scf::IfOp::create(b, sloc, last, /*withElse=*/false);
    OpBuilder tb = OpBuilder::atBlockBegin(&branch.getThenRegion().front());
    // Back to zero for the next launch on this workspace.
    Value zero32 = arith::ConstantOp::create(tb, sloc, tb.getI32IntegerAttr(0));
    kcc::AtomicRMWOp::create(tb, sloc, kcc::AtomicKind::Xchg, ticket, zero32,
                             Value(), kcc::MemoryOrder::Relaxed,
                             kcc::MemoryScope::Gpu);
    // acc = the sum of the S partial tiles, in slice order.
    Value zero = arith::ConstantOp::create(tb, sloc, tb.getF32FloatAttr(0.0f));
    Value init = kcc::SplatOp::create(tb, sloc, accType, zero);
    Value lo = arith::ConstantOp::create(tb, sloc, tb.getI32IntegerAttr(0));
    auto sum = scf::ForOp::create(
        tb, loc, lo, splits, one, ValueRange{init},
        [&](OpBuilder &lb, Location l, Value split, ValueRange iter) {
          Value part =
              kcc::LoadTileOp::create(lb, l, accType, copy.getArgument(first),
                                      ValueRange{copy.getArgument(first + 1),
                                                 copy.getArgument(first + 2)},
                                      ValueRange{copy.getArgument(first + 3)},
                                      workspace(lb, l, split), Value());
          // Straight into registers: the partial tiles were just written
          // (L2), one CTA per tile reads them once, and TMA stages here
          // would cost the K loop's pipeline their shared memory.
          part.getDefiningOp()->setAttr(
              kcc::KccDialect::kTmaRefusedAttr,
              lb.getStringAttr("the last slice of a split-K tile reads the "
                               "partial tiles into registers"));
          scf::YieldOp::create(
              lb, l,
              ValueRange{arith::AddFOp::create(lb, l, iter.front(), part)});
        });
    Operation *yield = branch.getThenRegion().front().getTerminator();
    for (Operation *op : epilogue)
      op->moveBefore(yield);
    loop.getResult(s.acc).replaceUsesWithIf(
        sum.getResult(0), [&](OpOperand &use) {
          return branch->isProperAncestor(use.getOwner());
        });
    return success();
  }
};

} // namespace
