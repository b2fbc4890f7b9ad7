"""A plain Triton matmul, the Triton baseline of bench/gemm/run_gemm.py.

Written for this benchmark in the style of Triton's matmul tutorial: one
program per BLOCK_M x BLOCK_N tile of C, tiles visited in groups of GROUP_M
rows so that neighbouring programs share A and B tiles in L2, fp32
accumulation with tl.dot, pipelined K loop (num_stages), and a few autotuned
tile shapes that suit an H100 (wgmma wants 128-row tiles per warpgroup;
these stay within the 227 KiB of shared memory an H100 block may use).

Any strides: the NT and TN products are the same kernel on transposed views
(a.t(), b.t()), which is how a Triton user would write them. C's dtype is the
output dtype (f16, bf16 or f32; accumulation is always f32).
"""
import triton
import triton.language as tl


def _configs():
    # (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps)
    shapes = [
        (128, 256, 64, 3, 8),
        (256, 128, 64, 3, 8),
        (128, 128, 64, 4, 8),
        (128, 128, 64, 4, 4),
        (128, 64, 64, 4, 4),
        (64, 128, 64, 4, 4),
    ]
    return [
        triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                      num_stages=stages, num_warps=warps)
        for bm, bn, bk, stages, warps in shapes
    ]


@triton.jit
def _grouped_tile(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  GROUP_M: tl.constexpr):
    """Program id -> (tile row, tile column), GROUP_M tile rows at a time."""
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * tiles_n
    group_row = (pid // in_group) * GROUP_M
    rows_here = min(tiles_m - group_row, GROUP_M)
    return group_row + (pid % in_group) % rows_here, (pid % in_group) // rows_here


@triton.jit
def _tile_product(a_ptr, b_ptr, c_ptr, tile_m, tile_n, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  EVEN_K: tl.constexpr):
    """C's tile (tile_m, tile_n) = A's rows x B's columns, pipelined over K."""
    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows < M
    col_ok = cols < N
    a_at = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_at = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a_tile = tl.load(a_at, mask=row_ok[:, None], other=0.0)
            b_tile = tl.load(b_at, mask=col_ok[None, :], other=0.0)
        else:
            k_left = K - kb * BLOCK_K
            a_tile = tl.load(a_at, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
            b_tile = tl.load(b_at, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)
        a_at += BLOCK_K * stride_ak
        b_at += BLOCK_K * stride_bk

    c_at = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_at, acc.to(c_ptr.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


# Strides are part of the key: NN, NT and TN of one shape are tuned apart.
@triton.autotune(configs=_configs(),
                 key=["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, EVEN_K: tl.constexpr):
    tile_m, tile_n = _grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    _tile_product(a_ptr, b_ptr, c_ptr, tile_m, tile_n, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M, BLOCK_N, BLOCK_K, EVEN_K)


def matmul(a, b, c):
    """c[M, N] = a[M, K] @ b[K, N] for 2-D CUDA tensors of any strides."""
    M, K = a.shape
    K2, N = b.shape
    assert K == K2 and tuple(c.shape) == (M, N)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    _matmul_kernel[grid](a, b, c, M, N, K,
                         a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                         c.stride(0), c.stride(1))
    return c


def best_config():
    """The config the autotuner chose for the last key it ran, as text (or None)."""
    config = getattr(_matmul_kernel, "best_config", None)
    return str(config) if config is not None else None


# The batched product: the same kernel body with the batch along the grid's
# second axis and one stride per operand for it (0 broadcasts an operand).
@triton.autotune(configs=_configs(),
                 key=["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def _bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                stride_az, stride_am, stride_ak, stride_bz, stride_bk, stride_bn,
                stride_cz, stride_cm, stride_cn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr, EVEN_K: tl.constexpr):
    tile_m, tile_n = _grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    z = tl.program_id(1).to(tl.int64)
    _tile_product(a_ptr + z * stride_az, b_ptr + z * stride_bz, c_ptr + z * stride_cz,
                  tile_m, tile_n, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M, BLOCK_N, BLOCK_K, EVEN_K)


def bmm(a, b, c):
    """c[B, M, N] = a[B, M, K] @ b[B, K, N] for 3-D CUDA tensors of any strides."""
    B, M, K = a.shape
    _, K2, N = b.shape
    assert K == K2 and tuple(c.shape) == (B, M, N)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), B)

    _bmm_kernel[grid](a, b, c, M, N, K,
                      a.stride(0), a.stride(1), a.stride(2),
                      b.stride(0), b.stride(1), b.stride(2),
                      c.stride(0), c.stride(1), c.stride(2))
    return c
