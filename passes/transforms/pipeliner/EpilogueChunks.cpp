//===- EpilogueChunks.cpp - a GEMM epilogue copied out in column chunks ---===//
//
// See EpilogueChunks.h. Chunk j of n (c columns each) goes through stage
// j % 2 of the ring:
//
//   cta_barrier                                  (j = 0)
//   bulk_wait_group 1 read; cta_barrier          (j >= 2: chunk j - 2 read)
//   smem_store %tile, %ring[j % 2] window [0, j * c]
//   fence_proxy_async; cta_barrier
//   tma_store %ring[j % 2] -> map[row, col + j * c]; bulk_commit_group
//
// so the registers of chunk j + 1 are written while the TMA engine reads
// chunk j. The async verifier proves it like any other stage reuse.
//
//===----------------------------------------------------------------------===//
#include "passes/transforms/pipeliner/EpilogueChunks.h"
#include "ir/TileCoords.h"

#include "passes/transforms/pipeliner/LoopPipelining.h"
#include "passes/analysis/MmaOperands.h"
#include "targets/TargetModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using kcc::pipelining::constI32;

namespace {
/// The columns of one chunk: whole boxes of the store's tensor map, at
/// least 64 (a tcgen05 accumulator read by two warpgroups interleaves
/// 32-column chunks: 64 keeps every register's chunk the same in all
/// threads, as smem_store's window lowering needs).
int64_t chunkColumnsFor(int64_t boxColumns) {
  if (boxColumns >= 64)
    return boxColumns;
  return 64 % boxColumns == 0 ? 64 : 0;
}

/// Fills e.epilogue and e.broadcasts for the stored `tile` when every value
/// the epilogue makes (and the broadcasts it reads) is used inside it, by
/// the stage write and the masked-store fallback only, all before
/// `branch`: then each chunk can compute its own copy.
void collectEpilogue(Value tile, scf::IfOp branch, kcc::ChunkableEpilogue &e) {
  Value acc = kcc::epilogueSource(tile);
  if (!acc || acc == tile || !acc.hasOneUse())
    return;
  SmallVector<Operation *> chain = kcc::epilogueChain(*acc.getUses().begin());
  if (chain.empty() || chain.back()->getResult(0) != tile)
    return;
  llvm::SmallPtrSet<Operation *, 16> inside(chain.begin(), chain.end());
  Block *block = branch->getBlock();
  for (Operation *op : chain) {
    if (op->getBlock() != block || !op->isBeforeInBlock(branch))
      return;
    for (Operation *user : op->getUsers())
      if (!inside.contains(user) && !branch->isAncestor(user))
        return;
  }
  SmallVector<kcc::BroadcastOp> broadcasts;
  for (Operation *op : chain)
    for (Value operand : op->getOperands()) {
      auto bc = operand.getDefiningOp<kcc::BroadcastOp>();
      if (!bc || llvm::is_contained(broadcasts, bc))
        continue;
      // Copied per chunk only where the epilogue alone reads it.
      if (bc->getBlock() == block &&
          llvm::all_of(bc->getUsers(),
                       [&](Operation *user) { return inside.contains(user); }))
        broadcasts.push_back(bc);
    }
  e.fused = !broadcasts.empty() || llvm::any_of(chain, [](Operation *op) {
    return !isa<CastOpInterface>(op);
  });
  e.epilogue = std::move(chain);
  e.broadcasts = std::move(broadcasts);
}

/// The stored tile of `e` computed at `b`'s insertion point: a copy of the
/// epilogue (and of the broadcasts only it reads) for chunk `j`.
Value epilogueCopy(OpBuilder &b, const kcc::ChunkableEpilogue &e, Value tile,
                   int64_t j) {
  // A cast alone stays whole, computed once before the branch.
  if (!e.fused)
    return tile;
  IRMapping copies;
  int64_t c = e.chunkColumns;
  auto chunk = b.getDenseI64ArrayAttr({j * c, (j + 1) * c});
  for (kcc::BroadcastOp bc : e.broadcasts)
    b.clone(*bc, copies)->setAttr(kcc::KccDialect::kEpilogueChunkAttr, chunk);
  for (Operation *op : e.epilogue)
    b.clone(*op, copies)->setAttr(kcc::KccDialect::kEpilogueChunkAttr, chunk);
  return copies.lookup(tile);
}
} // namespace

SmallVector<kcc::ChunkableEpilogue>
kcc::chunkableEpilogues(func::FuncOp func, const TargetModel &target) {
  SmallVector<ChunkableEpilogue> found;
  func.walk([&](TmaStoreOp copy) {
    auto branch = dyn_cast<scf::IfOp>(copy->getParentOp());
    if (!branch || copy->getBlock() != branch.thenBlock() ||
        !branch->hasAttr(KccDialect::kDataDependentAttr) || !branch.elseBlock())
      return;
    auto alloc = copy.getSrc().getDefiningOp<SmemAllocOp>();
    if (!alloc)
      return;
    // kcc-materialize-tma-copies' sequence (and the copy's coordinates),
    // nothing else in either branch.
    SmallVector<Operation *> then;
    for (Operation &op : *branch.thenBlock())
      if (!isa<arith::MulIOp, arith::ConstantOp>(op))
        then.push_back(&op);
    if (then.size() != 7 || !isa<CtaBarrierOp>(then[0]) ||
        !isa<SmemStoreOp>(then[1]) || !isa<FenceProxyAsyncOp>(then[2]) ||
        !isa<CtaBarrierOp>(then[3]) || then[4] != copy.getOperation() ||
        !isa<BulkCommitGroupOp>(then[5]))
      return;
    auto staged = cast<SmemStoreOp>(then[1]);
    Block *elseBlock = branch.elseBlock();
    auto edge = dyn_cast<StoreTileOp>(&elseBlock->front());
    if (staged.getDst() != alloc.getResult() || staged.getWindow() || !edge ||
        edge->getNextNode() != elseBlock->getTerminator() ||
        edge.getValue() != staged.getValue() ||
        !llvm::hasNItems(alloc->getUsers(), 2))
      return;
    SmemType type = alloc.getType();
    auto tile = cast<RankedTensorType>(staged.getValue().getType());
    if (type.getStages() != 1 || tile.getRank() != 2 ||
        !storesMmaAccumulator(edge, {&target}))
      return;
    int64_t columns = chunkColumnsFor(copy.getMap().getType().getBox().back());
    int64_t width = tile.getShape()[1];
    if (!columns || width % columns || width / columns < 3)
      return;
    ChunkableEpilogue e;
    collectEpilogue(staged.getValue(), branch, e);
    e.branch = branch;
    e.stage = alloc;
    e.staged = staged;
    e.copy = copy;
    e.edge = edge;
    e.chunkColumns = columns;
    e.chunks = width / columns;
    e.savedBytes = type.getStageBytes() - 2 * type.getStageBytes() / e.chunks;
    found.push_back(e);
  });
  return found;
}

void kcc::chunkEpilogue(ChunkableEpilogue e) {
  MLIRContext *ctx = e.stage.getContext();
  Block *then = e.branch.thenBlock();
  TmaStoreOp copy = e.copy;
  StoreTileOp edge = e.edge;
  Value tile = e.staged.getValue();
  auto tileType = cast<RankedTensorType>(tile.getType());
  SmemType whole = e.stage.getType();
  int64_t rows = tileType.getShape()[0], c = e.chunkColumns;
  int64_t parts = c / copy.getMap().getType().getBox().back();
  // The stage becomes the ring in place (every user is rebuilt below).
  auto ring = SmemType::get(ctx, {rows, c}, whole.getElementType(),
                            /*stages=*/2, whole.getSwizzle(), whole.getPad());
  e.stage.getResult().setType(ring);
  Value buffer = e.stage.getResult();
  Location loc = copy.getLoc();
  SmallVector<Value> coords(copy.getCoords());
  Value map = copy.getMap();
  std::string why;
  llvm::raw_string_ostream os(why);
  TensorMapType mapType = copy.getMap().getType();
  os << "the tile in " << e.chunks << " chunks of " << c
     << " columns through two " << rows << "x" << c << " stages ("
     << (e.fused ? "the epilogue computed a chunk at a time, so that its "
                   "temporaries never take a whole tile's registers beside "
                   "the accumulator"
                 : "a whole-tile stage would cost the K loop a pipeline "
                   "stage")
     << "), each " << parts << " TMA box" << (parts > 1 ? "es [" : " [");
  llvm::interleaveComma(mapType.getBox(), os);
  os << "] x " << mapType.getElementType();
  if (mapType.getSwizzle())
    os << ", " << mapType.getSwizzle() << "-byte swizzled";
  os << "; clipped at the tensor's edge";
  auto windowOf = [&](int64_t j) {
    return DenseI64ArrayAttr::get(ctx, {0, j * c});
  };

  // The TMA path, in place of the whole-tile sequence (the ops matched by
  // chunkableEpilogues).
  SmallVector<Operation *> sequence;
  for (Operation &op : *then)
    if (isa<CtaBarrierOp, SmemStoreOp, FenceProxyAsyncOp, TmaStoreOp,
            BulkCommitGroupOp>(op))
      sequence.push_back(&op);
  OpBuilder b(then->getTerminator());
  for (int64_t j = 0; j < e.chunks; ++j) {
    Value slot = constI32(b, loc, j % 2);
    if (j >= 2)
      BulkWaitGroupOp::create(b, loc, 1, /*read=*/true);
    if (j != 1)
      CtaBarrierOp::create(b, loc);
    SmemStoreOp::create(b, loc, epilogueCopy(b, e, tile, j), buffer, slot,
                        windowOf(j));
    FenceProxyAsyncOp::create(b, loc);
    CtaBarrierOp::create(b, loc);
    SmallVector<Value> at(coords);
    if (j)
      at.back() =
          arith::AddIOp::create(b, loc, at.back(), constI32(b, loc, j * c));
    auto chunk = TmaStoreOp::create(b, loc, buffer, slot, map, at, parts);
    chunk->setAttr(KccDialect::kTileAccessAttr, StringAttr::get(ctx, why));
    BulkCommitGroupOp::create(b, loc);
  }
  for (Operation *op : sequence)
    op->erase();

  // The masked-store fallback: each chunk relayouts through its stage and
  // is stored as a tile of c columns (block coordinate col * n + j, element
  // coordinate col + j * c).
  OpBuilder eb(edge);
  Location eloc = edge.getLoc();
  auto chunkType = RankedTensorType::get({rows, c}, tileType.getElementType());
  for (int64_t j = 0; j < e.chunks; ++j) {
    Value slot = constI32(eb, eloc, j % 2);
    CtaBarrierOp::create(eb, eloc);
    SmemStoreOp::create(eb, eloc, epilogueCopy(eb, e, tile, j), buffer, slot,
                        windowOf(j));
    CtaBarrierOp::create(eb, eloc);
    Value part = SmemLoadOp::create(eb, eloc, chunkType, buffer, slot);
    Value col =
        kcc::hasElementCoords(edge)
            ? arith::AddIOp::create(eb, eloc, edge.getCoords().back(),
                                    constI32(eb, eloc, j * c))
                  .getResult()
            : arith::AddIOp::create(
                  eb, eloc,
                  arith::MulIOp::create(eb, eloc, edge.getCoords().back(),
                                        constI32(eb, eloc, e.chunks)),
                  constI32(eb, eloc, j))
                  .getResult();
    auto store = cast<StoreTileOp>(eb.clone(*edge));
    store.getValueMutable().set(part);
    store.getCoordsMutable()[store.getCoords().size() - 1].set(col);
  }
  edge.erase();
  // The whole-tile epilogue has no users left.
  if (!e.fused)
    return;
  for (Operation *op : llvm::reverse(e.epilogue))
    op->erase();
  for (BroadcastOp bc : e.broadcasts)
    bc->erase();
}
