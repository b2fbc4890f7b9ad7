// Tile IR as the frontend will emit it for a TMA copy (hand-written: the
// frontend does not add tensor map arguments yet): the tensor parameters
// `dst` and `src` of rank 2, then one tensor map per tensor, mapping the
// tensor whose base pointer is argument `kcc.tensor_map_of`.
module {
  func.func @tma_copy_f32(%dst: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32},
                          %dst_dim0: i32, %dst_dim1: i32, %dst_stride0: i32 {kcc.divisibility = 4 : i64},
                          %src: !kcc.ptr<f32> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32},
                          %src_dim0: i32, %src_dim1: i32, %src_stride0: i32 {kcc.divisibility = 4 : i64},
                          %n: i32,
                          %dst_map: !kcc.tensormap<[32, 64], f32, swizzle = 0> {kcc.tensor_map_of = 0 : i32},
                          %src_map: !kcc.tensormap<[32, 32], f32, swizzle = 128> {kcc.tensor_map_of = 4 : i32})
      attributes {kcc.kernel,
                  kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "n", "dst__map0", "src__map0"],
                  kcc.base_name = "tma_copy", kcc.constant_names = ["T"],
                  kcc.grid = ["(((src_dim1) + (64) - 1) / (64))", "(((src_dim0) + (32) - 1) / (32))", "1"],
                  kcc.specialization = {T = f32}} {
    return
  }
  func.func @tma_copy_f16(%dst: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32},
                          %dst_dim0: i32, %dst_dim1: i32, %dst_stride0: i32 {kcc.divisibility = 8 : i64},
                          %src: !kcc.ptr<f16> {kcc.align = 16 : i64, kcc.tensor_rank = 2 : i32},
                          %src_dim0: i32, %src_dim1: i32, %src_stride0: i32 {kcc.divisibility = 8 : i64},
                          %n: i32,
                          %dst_map: !kcc.tensormap<[32, 64], f16, swizzle = 128> {kcc.tensor_map_of = 0 : i32},
                          %src_map: !kcc.tensormap<[32, 64], f16, swizzle = 128> {kcc.tensor_map_of = 4 : i32})
      attributes {kcc.kernel,
                  kcc.arg_names = ["dst", "dst_dim0", "dst_dim1", "dst_stride0", "src", "src_dim0", "src_dim1", "src_stride0", "n", "dst__map0", "src__map0"],
                  kcc.base_name = "tma_copy", kcc.constant_names = ["T"],
                  kcc.grid = ["(((src_dim1) + (64) - 1) / (64))", "(((src_dim0) + (32) - 1) / (32))", "1"],
                  kcc.specialization = {T = f16}} {
    return
  }
  // Rank 1: no strides.
  func.func @tma_vec(%x: !kcc.ptr<bf16> {kcc.align = 16 : i64, kcc.tensor_rank = 1 : i32}, %x_dim0: i32,
                     %x_map: !kcc.tensormap<[256], bf16, swizzle = 0> {kcc.tensor_map_of = 0 : i32})
      attributes {kcc.kernel, kcc.arg_names = ["x", "x_dim0", "x__map0"],
                  kcc.base_name = "tma_vec", kcc.constant_names = [],
                  kcc.grid = ["(((x_dim0) + (256) - 1) / (256))", "1", "1"],
                  kcc.specialization = {}} {
    return
  }
}
