//===- LaunchCost.cpp - what one CTA of a GEMM-shaped kernel does per step ===//

#include "passes/analysis/LaunchCost.h"

#include "ir/Dialect.h"
#include "passes/analysis/HostExpr.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace {

double bytesOf(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  if (!tile || !tile.hasStaticShape())
    return 0;
  Type elem = tile.getElementType();
  unsigned bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 64;
  return static_cast<double>(tile.getNumElements()) * ((bits + 7) / 8);
}

/// The loads in `loop`'s body that `v` is computed from (through element
/// casts, transposes and layout changes), collected into `out`.
void operandLoads(Value v, llvm::SmallPtrSetImpl<Operation *> &out,
                  int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8)
    return;
  if (isa<kcc::LoadTileOp, kcc::LoadOp>(def)) {
    out.insert(def);
    return;
  }
  if (def->getNumOperands() == 1 && def->getNumResults() == 1)
    operandLoads(def->getOperand(0), out, depth + 1);
}

/// `loop`'s trip count as C over the parameters, unparenthesized
/// ("((ub) - (lb) + step - 1) / step"), or none when a bound is not computed
/// from integer parameters and constants or the step is not a positive
/// constant.
std::optional<std::string> tripsOf(scf::ForOp loop, ArrayAttr names) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  std::string lb = kcc::hostExpr(loop.getLowerBound(), names);
  std::string ub = kcc::hostExpr(loop.getUpperBound(), names);
  if (!step || *step <= 0 || lb.empty() || ub.empty())
    return std::nullopt;
  return llvm::formatv("(({1}) - ({0}) + {2} - 1) / {2}", lb, ub, *step).str();
}

/// The bytes one program of `func` (no products) loads and stores, as C over
/// its parameters: each access's tile (masked lanes included: they take the
/// issue slots of the others) times the trip counts of the loops around it
/// and the truth of the branches it is under. None, with `why`, where a
/// loop or branch depends on more than the parameters and constants.
std::optional<std::string> streamBytesOf(func::FuncOp func, std::string &why) {
  auto names = func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kArgNamesAttr);
  std::vector<std::string> terms;
  std::function<bool(Block &, const std::string &)> visit =
      [&](Block &block, const std::string &times) -> bool {
    for (Operation &op : block) {
      Value tile;
      if (isa<kcc::LoadOp, kcc::LoadTileOp>(op))
        tile = op.getResult(0);
      else if (auto st = dyn_cast<kcc::StoreOp>(op))
        tile = st.getValue();
      else if (auto st = dyn_cast<kcc::StoreTileOp>(op))
        tile = st.getValue();
      if (tile) {
        Type t = tile.getType();
        double bytes = bytesOf(t);
        if (bytes == 0) { // a scalar
          Type e = getElementTypeOrSelf(t);
          bytes = e.isIntOrFloat() ? (e.getIntOrFloatBitWidth() + 7) / 8 : 8;
        }
        terms.push_back(llvm::formatv("{0} * {1}", int64_t(bytes), times));
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        std::optional<std::string> count = tripsOf(loop, names);
        if (!count) {
          why = "a loop's trip count is not computed from integer parameters "
                "and constants alone";
          return false;
        }
        std::string trips = "std::max<int64_t>(0, " + *count + ")";
        if (!visit(*loop.getBody(), times + " * " + trips))
          return false;
        continue;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        std::string cond = kcc::hostExpr(branch.getCondition(), names);
        if (cond.empty()) {
          why = "a branch's condition is not computed from integer "
                "parameters and constants alone";
          return false;
        }
        if (!visit(branch.getThenRegion().front(),
                   times + " * ((" + cond + ") ? 1 : 0)"))
          return false;
        if (!branch.getElseRegion().empty() &&
            !visit(branch.getElseRegion().front(),
                   times + " * ((" + cond + ") ? 0 : 1)"))
          return false;
        continue;
      }
      if (op.getNumRegions() > 0 &&
          op.walk([](Operation *inner) {
              return isa<kcc::LoadOp, kcc::LoadTileOp, kcc::StoreOp,
                         kcc::StoreTileOp>(inner)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            }).wasInterrupted()) {
        why = "its memory accesses are in a region the host cannot size (" +
              op.getName().getStringRef().str() + ")";
        return false;
      }
    }
    return true;
  };
  if (!visit(func.getBody().front(), "int64_t(1)"))
    return std::nullopt;
  if (terms.empty()) {
    why = "the kernel moves no memory";
    return std::nullopt;
  }
  return "(" + llvm::join(terms, " + ") + ")";
}

} // namespace

std::optional<kcc::LaunchCost> kcc::launchCostOf(func::FuncOp func,
                                                 std::string &why) {
  if (func.isExternal())
    return std::nullopt;
  Block &entry = func.getBody().front();
  // No products anywhere: a memory-bound kernel, weighed by its traffic.
  if (!func->walk([](DotOp) { return WalkResult::interrupt(); })
           .wasInterrupted()) {
    std::optional<std::string> bytes = streamBytesOf(func, why);
    if (!bytes)
      return std::nullopt;
    LaunchCost cost;
    cost.streamBytes = *bytes;
    return cost;
  }
  scf::ForOp loop;
  for (auto l : entry.getOps<scf::ForOp>()) {
    if (!l->walk([](DotOp) {
            return WalkResult::interrupt();
          }).wasInterrupted())
      continue;
    if (loop) {
      why = "the kernel has more than one loop of products";
      return std::nullopt;
    }
    loop = l;
  }
  if (!loop) {
    why = "the kernel has no loop of products";
    return std::nullopt;
  }
  LaunchCost cost;
  llvm::SmallPtrSet<Operation *, 8> rowLoads, colLoads;
  bool nested = false;
  int products = 0;
  loop->walk([&](DotOp dot) {
    ++products;
    if (dot->getBlock() != loop.getBody()) {
      nested = true;
      return;
    }
    auto a = cast<RankedTensorType>(dot.getA().getType());
    auto c = cast<RankedTensorType>(dot.getC().getType());
    if (a.getRank() != 2 || c.getRank() != 2)
      return;
    int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
    unsigned bits = a.getElementType().getIntOrFloatBitWidth();
    cost.flops += 2.0 * m * n * k;
    // wgmma's issue pattern: each 64-row warpgroup reads its A rows and the
    // whole B tile from shared memory.
    cost.smemBytes +=
        static_cast<double>(m + (m + 63) / 64 * n) * k * ((bits + 7) / 8);
    cost.flopsScale = bits <= 8 ? 2 : bits >= 32 ? 0.5 : 1;
    if (m * n > cost.tileM * cost.tileN) {
      cost.tileM = m;
      cost.tileN = n;
    }
    operandLoads(dot.getA(), rowLoads);
    operandLoads(dot.getB(), colLoads);
  });
  if (nested) {
    why = "its products are in a loop nested in the product loop";
    return std::nullopt;
  }
  // The launch's model is a GEMM's: one product per iteration, whose
  // accumulator is the output tile (attention's two products are not).
  if (products > 1) {
    why = "its product loop has more than one product (the launch's cost "
          "model describes one)";
    return std::nullopt;
  }
  if (cost.flops == 0) {
    why = "its products are not 2-D";
    return std::nullopt;
  }
  loop.getBody()->walk([&](Operation *op) {
    if (!isa<LoadTileOp, LoadOp>(op))
      return;
    double bytes = bytesOf(op->getResult(0).getType());
    if (rowLoads.contains(op))
      cost.rowBytes += bytes;
    else
      cost.colBytes += bytes;
  });
  auto names = func->getAttrOfType<ArrayAttr>(KccDialect::kArgNamesAttr);
  std::optional<std::string> count = tripsOf(loop, names);
  if (!count) {
    why = "its product loop's trip count is not computed from integer "
          "parameters and constants alone";
    return std::nullopt;
  }
  cost.trips = "(" + *count + ")";
  // What the epilogue writes, and the output's sizes (the first 2-D
  // store_tile's tensor) for the rows and columns a tile covers.
  for (Operation &op :
       llvm::make_range(std::next(loop->getIterator()), entry.end()))
    op.walk([&](Operation *inner) {
      if (auto store = dyn_cast<StoreTileOp>(inner)) {
        cost.storeBytes += bytesOf(store.getValue().getType());
        if (cost.rows.empty() && store.getDims().size() == 2) {
          cost.rows = hostExpr(store.getDims()[0], names);
          cost.cols = hostExpr(store.getDims()[1], names);
        }
      } else if (auto store = dyn_cast<StoreOp>(inner)) {
        cost.storeBytes += bytesOf(store.getValue().getType());
      }
    });
  if (cost.rows.empty() || cost.cols.empty())
    cost.rows = cost.cols = "";
  return cost;
}
