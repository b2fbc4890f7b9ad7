//===- MaterializeTmaCopies.cpp - load_tile/store_tile as TMA copies ------===//
//
// kcc-materialize-tma-copies (Passes.td). Copies issue where the access was
// and are waited for only where the tile is used, so independent loads
// overlap. A store that may reach past the tensor's last full 16-byte
// granule of a row takes masked vector stores instead (a run-time branch
// the verifier checks both ways). A store of a tile that was loaded with TMA
// and not changed copies straight from the load's stage (no trip through
// registers). A store reuses the stage of a load of the same shape once
// every thread has read it (cta_barrier), which keeps shared memory within
// the static limit.
//
//===----------------------------------------------------------------------===//

#include "passes/analysis/AxisInfo.h"
#include "passes/analysis/MmaOperands.h"
#include "passes/Passes.h"
#include "passes/analysis/PersistentTiles.h"
#include "passes/analysis/TensorMaps.h"

#include "ir/TargetLookup.h"
#include "ir/TileCoords.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace kcc {
#define GEN_PASS_DEF_KCCMATERIALIZETMACOPIES
#include "passes/Passes.h.inc"
} // namespace kcc

namespace {

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

/// The op of `block` that contains `op` (or null).
Operation *ancestorIn(Block *block, Operation *op) {
  return op ? block->findAncestorOpInBlock(*op) : nullptr;
}

/// Where the TMA copy of `load` issues: right after the last op of its
/// block that defines what the copy reads (`deps`: its coordinates, map,
/// stage and barriers; `initialized`, the barriers' initialization), and
/// after the last op that may write global memory, so that the copy
/// overlaps whatever runs before the tile is needed (the K loop ahead of a
/// GEMM epilogue's bias) and still reads what the kernel wrote before it.
Operation *issuePoint(Operation *load, ArrayRef<Value> deps,
                      Operation *initialized) {
  Block *block = load->getBlock();
  Operation *last = initialized ? ancestorIn(block, initialized) : nullptr;
  auto later = [&](Operation *a) {
    if (a && (!last || last->isBeforeInBlock(a)))
      last = a;
  };
  for (Value v : deps)
    if (Operation *def = v.getDefiningOp())
      later(ancestorIn(block, def));
  for (Operation *op = load->getPrevNode(); op && op != last;
       op = op->getPrevNode()) {
    bool writes = op->walk([](Operation *inner) {
                      return isa<kcc::StoreOp, kcc::StoreTileOp,
                                 kcc::TmaStoreOp, func::CallOp>(inner)
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    }).wasInterrupted();
    if (writes) {
      later(op);
      break;
    }
  }
  return last ? last->getNextNode() : &block->front();
}

struct Stage {
  Value buffer;
  kcc::SmemType type;
  Operation *read = nullptr; // the smem_load of a loaded stage
  bool taken = false;        // reused or stored from: cannot be rewritten
  // A once-per-tile load of a persistent kernel: the CTA barrier before its
  // copy (the previous tile's threads are done with the stage).
  Operation *tileBarrier = nullptr;
};

struct MaterializeTmaCopies
    : kcc::impl::KccMaterializeTmaCopiesBase<MaterializeTmaCopies> {
  using Base::Base;

  void runOnOperation() override {
    target = kcc::lookupTarget(getOperation(), targetName, getArgument(),
                               /*fallback=*/"sm_90a");
    if (!target)
      return signalPassFailure();
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(kcc::KccDialect::kKernelAttr) && !func.isExternal())
        runOnKernel(func);
  }

  void refuse(Operation *op, const Twine &why) {
    if (!op->hasAttr(kcc::KccDialect::kTmaRefusedAttr))
      op->setAttr(kcc::KccDialect::kTmaRefusedAttr, StringAttr::get(op->getContext(), why));
  }

  void runOnKernel(func::FuncOp func);

  const kcc::TargetModel *target = nullptr;
};

void MaterializeTmaCopies::runOnKernel(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  Block &entry = func.getBody().front();

  SmallVector<std::pair<Operation *, Value>> loads, stores;
  func.walk([&](Operation *op) {
    if (!isa<kcc::LoadTileOp, kcc::StoreTileOp>(op))
      return;
    if (!target->hasAsyncCopy("tma"))
      return refuse(op, "target '" + target->name + "' has no TMA");
    std::string never = kcc::tmaAccessRefusal(op);
    if (never.empty())
      never = kcc::mmaStageRefusal(op, *target);
    if (!never.empty())
      return refuse(op, never);
    if (kcc::enclosingLoop(op))
      return; // a load of a for loop: kcc-pipeline-tma-loads
    // Once per tile of a persistent kernel: the copy reuses its stage and
    // barrier every tile, which needs a barrier of every thread before it.
    if (Operation *tiles = kcc::persistentTileLoopOf(op))
      if (op->getParentOp() != tiles)
        return refuse(op, "the access is inside a branch of a persistent "
                          "kernel's tile loop; a TMA copy there needs every "
                          "thread's barrier before it (vector accesses)");

    auto load = dyn_cast<kcc::LoadTileOp>(op);
    std::string why;
    Value map = kcc::tensorMapFor(op, why);
    if (!map)
      return refuse(op, why);
    (load ? loads : stores).push_back({op, map});
  });
  if (loads.empty() && stores.empty())
    return;

  OpBuilder b(ctx);
  b.setInsertionPointToStart(&entry);
  Location entryLoc = func.getLoc();
  auto stageOf = [&](ArrayRef<int64_t> shape, Type elem, unsigned swizzle = 0) {
    auto type =
        kcc::SmemType::get(ctx, shape, elem, /*stages=*/1, swizzle, /*pad=*/0);
    return Stage{kcc::SmemAllocOp::create(b, entryLoc, type), type};
  };
  auto describe = [&](Operation *copy, kcc::TensorMapType type, Value map) {
    std::string text = "TMA box [";
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(type.getBox(), os);
    os << "] x " << type.getElementType();
    int64_t parts = isa<kcc::TmaStoreOp>(copy)
                        ? cast<kcc::TmaStoreOp>(copy).getParts()
                        : cast<kcc::TmaLoadOp>(copy).getParts();
    if (parts > 1)
      os << ", " << parts << " boxes side by side, 128-byte swizzled";
    os << " (" << type.getBoxBytes() << " bytes";
    if (isa<kcc::TmaLoadOp>(copy))
      os << ", expect_tx counts the full box; out-of-tensor elements read 0";
    else
      os << "; clipped at the tensor's edge";
    auto arg = cast<BlockArgument>(map);
    if (auto names = func->getAttrOfType<ArrayAttr>(
            kcc::KccDialect::kArgNamesAttr))
      if (arg.getArgNumber() < names.size())
        os << "; tensor map '"
           << cast<StringAttr>(names[arg.getArgNumber()]).getValue() << "'";
    os << ")";
    copy->setAttr(kcc::KccDialect::kTileAccessAttr, StringAttr::get(ctx, text));
  };
  // Element coordinates of the access's box (a batch index is one already).
  auto scaledCoords = [&](OpBuilder &ob, Operation *access, ValueRange coords,
                          ArrayRef<int64_t> shape) {
    SmallVector<Value> out;
    for (auto [c, s] : llvm::zip(
             coords,
             kcc::tileCoordScale(access, kcc::withBatchDims(access, shape))))
      out.push_back(
          s == 1 ? c
                 : arith::MulIOp::create(ob, access->getLoc(), c,
                                         constI32(ob, access->getLoc(), s)));
    return out;
  };

  // Loads: one barrier each, initialized at entry.
  Value bars;
  Operation *initialized = nullptr;
  if (!loads.empty()) {
    bars = kcc::MBarrierAllocOp::create(
        b, entryLoc, kcc::MBarrierType::get(ctx, loads.size()));
    for (unsigned k = 0; k < loads.size(); ++k)
      kcc::MBarrierInitOp::create(b, entryLoc, bars,
                                  constI32(b, entryLoc, k), 1);
    initialized = kcc::FenceMBarrierInitOp::create(b, entryLoc);
  }
  SmallVector<Stage> loaded;
  llvm::DenseMap<Operation *, unsigned> stageOfRead;
  for (auto [k, entryPair] : llvm::enumerate(loads)) {
    auto load = cast<kcc::LoadTileOp>(entryPair.first);
    Value map = entryPair.second;
    auto mapType = cast<kcc::TensorMapType>(map.getType());
    Stage stage = stageOf(load.getType().getShape(),
                          load.getType().getElementType(),
                          mapType.getSwizzle());
    // Issued as early as it can be; waited for where first needed.
    SmallVector<Value> deps(load.getCoords());
    deps.append({map, stage.buffer, bars});
    OpBuilder ob(issuePoint(load, deps, initialized));
    Location loc = load.getLoc();
    Value index = constI32(ob, loc, k);
    int64_t parts = kcc::tmaPartsOf(load, mapType);
    // In a persistent kernel the copy runs once per tile: the stage is free
    // once every thread has read the previous tile's, and the barrier's
    // phase alternates with the tile.
    Operation *tiles = kcc::persistentTileLoopOf(load);
    Operation *tileBarrier =
        tiles ? kcc::CtaBarrierOp::create(ob, loc).getOperation() : nullptr;
    // The previous tile's reads were ordinary loads and the copy writes
    // through the async proxy: a proxy fence after the barrier orders them
    // (as kcc-pipeline-tma-loads' refills).
    if (tiles)
      kcc::FenceProxyAsyncOp::create(ob, loc);
    kcc::MBarrierArriveExpectTxOp::create(ob, loc, bars, index,
                                          parts * mapType.getBoxBytes());
    auto copy = kcc::TmaLoadOp::create(
        ob, loc, map,
        scaledCoords(ob, load, load.getCoords(), load.getType().getShape()),
        stage.buffer, constI32(ob, loc, 0), bars, index, parts,
        /*multicast=*/nullptr);
    describe(copy, mapType, map);
    // Wait where the tile is first needed, so later copies issue first.
    Operation *first = nullptr;
    for (Operation *user : load->getUsers())
      if (Operation *a = ancestorIn(load->getBlock(), user))
        if (!first || a->isBeforeInBlock(first))
          first = a;
    OpBuilder wb(load);
    if (first)
      wb.setInsertionPoint(first);
    Value parity =
        tiles
            ? arith::AndIOp::create(wb, loc, kcc::persistentTileOrdinal(tiles),
                                    constI32(wb, loc, 1))
                  .getResult()
            : constI32(wb, loc, 0);
    kcc::MBarrierWaitOp::create(wb, loc, bars, constI32(wb, loc, k), parity);
    auto read = kcc::SmemLoadOp::create(wb, loc, load.getType(), stage.buffer,
                                        constI32(wb, loc, 0));
    stage.read = read;
    stage.tileBarrier = tileBarrier;
    stageOfRead[read] = loaded.size();
    loaded.push_back(stage);
    load.replaceAllUsesWith(read.getResult());
    load.erase();
  }

  // Stores. A TMA store writes the whole 16-byte granule of each row that
  // holds the tensor's last column, past the edge (measured on the H100,
  // docs/async.md): a tile that reaches into a partial last granule is
  // stored with masked vector stores instead, chosen at run time.
  for (auto [op, map] : stores) {
    auto store = cast<kcc::StoreTileOp>(op);
    auto mapType = cast<kcc::TensorMapType>(map.getType());
    auto tile = cast<RankedTensorType>(store.getValue().getType());
    OpBuilder guard(store);
    Location loc = store.getLoc();
    int64_t granule =
        std::max<int64_t>(1, 16 / kcc::getElementBytes(tile.getElementType()));
    Value inner = store.getDims().back(), coord = store.getCoords().back();
    Value c0 = constI32(guard, loc, 0);
    Value aligned = arith::CmpIOp::create(
        guard, loc, arith::CmpIPredicate::eq,
        arith::RemSIOp::create(guard, loc, inner,
                               constI32(guard, loc, granule)),
        c0);
    // Interior: the tile ends before the partial last granule (block
    // coordinates: its block is one of the whole ones).
    Value interior;
    int64_t cols = tile.getShape().back();
    if (kcc::hasElementCoords(store)) {
      Value whole = arith::MulIOp::create(
          guard, loc,
          arith::DivSIOp::create(guard, loc,
                                 arith::MaxSIOp::create(guard, loc, inner, c0),
                                 constI32(guard, loc, granule)),
          constI32(guard, loc, granule));
      interior = arith::CmpIOp::create(
          guard, loc, arith::CmpIPredicate::sle,
          arith::AddIOp::create(guard, loc, coord, constI32(guard, loc, cols)),
          whole);
    } else {
      Value full = arith::DivSIOp::create(
          guard, loc, arith::MaxSIOp::create(guard, loc, inner, c0),
          constI32(guard, loc, cols));
      interior = arith::CmpIOp::create(guard, loc, arith::CmpIPredicate::slt,
                                       coord, full);
    }
    Value ok = arith::AndIOp::create(
        guard, loc, arith::OrIOp::create(guard, loc, aligned, interior),
        arith::CmpIOp::create(guard, loc, arith::CmpIPredicate::sge, coord,
                              c0));
    // In a persistent kernel the stage may still be read by the previous
    // tile's store: its bulk group must have read it before either side
    // rewrites it (behind a barrier of every thread, below).
    if (kcc::persistentTileLoopOf(store))
      kcc::BulkWaitGroupOp::create(guard, loc, 0, /*read=*/true);
    auto branch = scf::IfOp::create(guard, loc, ok, /*withElseRegion=*/true);
    branch->setAttr(kcc::KccDialect::kDataDependentAttr,
                    UnitAttr::get(ctx));
    OpBuilder eb = OpBuilder::atBlockBegin(branch.elseBlock());
    OpBuilder ob = OpBuilder::atBlockBegin(branch.thenBlock());
    Value buffer;
    // An unchanged TMA-loaded tile: copy out of its stage.
    auto read = store.getValue().getDefiningOp<kcc::SmemLoadOp>();
    Value fallback = store.getValue();
    if (read && stageOfRead.count(read) &&
        loaded[stageOfRead[read]].type.getShape() == tile.getShape() &&
        loaded[stageOfRead[read]].type.getSwizzle() == mapType.getSwizzle()) {
      buffer = read.getSrc();
      loaded[stageOfRead[read]].taken = true;
      // The edge path reads the stage only where it needs the registers.
      fallback = kcc::SmemLoadOp::create(eb, loc, tile, buffer,
                                         constI32(eb, loc, 0));
    } else {
      // Reuse a loaded stage of the same shape read earlier in this block.
      // A dot's reads of it (attention's Q, read by the wgmma of every
      // iteration of the loop before) are retired before the store's value,
      // computed from their results, exists; where the loop does not run the
      // stage was waited for and is only discarded (the async verifier
      // checks both).
      for (Stage &s : loaded)
        if (!buffer && !s.taken && s.type.getShape() == tile.getShape() &&
            s.type.getElementType() == tile.getElementType() &&
            s.type.getSwizzle() == mapType.getSwizzle() &&
            s.read->getBlock() == store->getBlock() &&
            s.read->isBeforeInBlock(store)) {
          buffer = s.buffer;
          s.taken = true;
        }
      if (!buffer)
        buffer = stageOf(tile.getShape(), tile.getElementType(),
                         mapType.getSwizzle())
                     .buffer;
      // Every thread is done with the stage (and with earlier reads of it)
      // before any thread rewrites it.
      kcc::CtaBarrierOp::create(ob, loc);
      kcc::SmemStoreOp::create(ob, loc, store.getValue(), buffer,
                               constI32(ob, loc, 0));
      kcc::FenceProxyAsyncOp::create(ob, loc);
      kcc::CtaBarrierOp::create(ob, loc);
    }
    auto copy = kcc::TmaStoreOp::create(
        ob, loc, buffer, constI32(ob, loc, 0), map,
        scaledCoords(ob, store, store.getCoords(), tile.getShape()),
        kcc::tmaPartsOf(store, mapType));
    describe(copy, mapType, map);
    kcc::BulkCommitGroupOp::create(ob, loc);
    auto edge = cast<kcc::StoreTileOp>(eb.clone(*store));
    edge.getValueMutable().set(fallback);
    edge->setAttr(kcc::KccDialect::kTmaRefusedAttr,
                  StringAttr::get(ctx, "this tile reaches into the partial "
                                       "last 16-byte granule of the tensor's "
                                       "rows, which a TMA store would "
                                       "overwrite past the edge: masked "
                                       "vector stores, chosen at run time"));
    store.erase();
  }
  // A once-per-tile load into a stage that a store of the tile loop copies
  // out of: the previous tile's TMA store must have read the stage before
  // the next tile's copy overwrites it (its issuing thread waits, the
  // barrier holds the others).
  for (Stage &s : loaded)
    if (s.taken && s.tileBarrier) {
      OpBuilder wb(s.tileBarrier);
      kcc::BulkWaitGroupOp::create(wb, s.tileBarrier->getLoc(), 0,
                                   /*read=*/true);
    }
  if (!stores.empty())
    func.walk([&](func::ReturnOp ret) {
      OpBuilder rb(ret);
      kcc::BulkWaitGroupOp::create(rb, ret.getLoc(), 0, /*read=*/true);
    });
  // Reads whose only user was a direct store.
  for (Stage &s : loaded)
    if (s.read->use_empty())
      s.read->erase();
}

} // namespace
