// Unit tests for !kcc.smem's row padding (ir/KccTypes.td): the bytes of a
// stage and of a row, and which paddings the verifier accepts (a padded
// stage keeps every row and chunk 16-byte aligned for cp.async and
// ldmatrix).
#include "ir/Dialect.h"

#include "mlir/IR/Diagnostics.h"

#include <doctest/doctest.h>

using namespace kcc;

namespace {

/// Whether SmemType's verifier accepts the parameters.
bool accepts(mlir::MLIRContext &ctx, llvm::ArrayRef<int64_t> shape,
             mlir::Type elem, unsigned swizzle, unsigned pad) {
  mlir::ScopedDiagnosticHandler quiet(
      &ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  return bool(SmemType::getChecked(
      [&] { return mlir::emitError(mlir::UnknownLoc::get(&ctx)); }, &ctx, shape,
      elem, /*stages=*/2u, swizzle, pad));
}

} // namespace

TEST_CASE("row-padded shared stages") {
  mlir::MLIRContext ctx;
  ctx.loadDialect<KccDialect>();
  auto f16 = mlir::Float16Type::get(&ctx);
  auto f32 = mlir::Float32Type::get(&ctx);

  SmemType dense = SmemType::get(&ctx, {128, 64}, f16, 3, 0, 0);
  CHECK(dense.getRowBytes() == 128);
  CHECK(dense.getStageBytes() == 128 * 128);

  // 64 f16 per row + 16 bytes: 144-byte rows, so row r starts in bank
  // group (r * 144 / 16) % 8 = r % 8 and the 8 rows of an ldmatrix differ.
  SmemType padded = SmemType::get(&ctx, {128, 64}, f16, 3, 0, 16);
  CHECK(padded.getRowBytes() == 144);
  CHECK(padded.getStageBytes() == 128 * 144);
  for (int64_t r = 0; r < 8; ++r)
    CHECK(r * padded.getRowBytes() / 16 % 8 == r);

  // A 32 x f16 tile (a GEMV's slice of x) is 64 bytes; its stages are 128
  // bytes apart, where a TMA copy may write.
  SmemType small = SmemType::get(&ctx, {32}, f16, 3, 0, 0);
  CHECK(small.getStageBytes() == 128);

  CHECK(accepts(ctx, {64, 64}, f16, 0, 16));
  CHECK(accepts(ctx, {32, 8}, f16, 0, 32));
  CHECK(accepts(ctx, {16, 4}, f32, 0, 16));
  CHECK_FALSE(accepts(ctx, {64, 64}, f16, 128, 16)); // swizzled
  CHECK_FALSE(accepts(ctx, {64, 64}, f16, 0, 8));    // not a 16-byte chunk
  CHECK_FALSE(accepts(ctx, {64, 4}, f16, 0, 16));    // 8-byte rows
  CHECK_FALSE(accepts(ctx, {4096}, f16, 0, 16));     // 1-D
}
