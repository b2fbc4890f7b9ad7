#b = #kcc.blocked<vec = 4, threads = 128, warp = 32>
module {
  func.func @red(%x: !kcc.ptr<f32>, %out: !kcc.ptr<f32>) attributes {kcc.kernel, kcc.num_warps = 4 : i32} {
    %r = kcc.arange {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #b>
    %xp = kcc.splat %x : tensor<1024x!kcc.ptr<f32>, #b>
    %xa = kcc.addptr %xp, %r : tensor<1024x!kcc.ptr<f32>, #b>, tensor<1024xi32, #b>
    %v = kcc.load %xa {kcc.access_width = 4 : i32} : tensor<1024x!kcc.ptr<f32>, #b>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %f0 = arith.constant 0.0 : f32
    %acc = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %f0) -> (f32) : i32 {
      %s = kcc.reduce sum %v {axis = 0 : i32} : tensor<1024xf32, #b> -> f32
      %a2 = arith.addf %a, %s : f32
      scf.yield %a2 : f32
    }
    %m = kcc.reduce max %v {axis = 0 : i32} : tensor<1024xf32, #b> -> f32
    kcc.store %out, %acc : !kcc.ptr<f32>
    %o1 = kcc.addptr %out, %c1 : !kcc.ptr<f32>, i32
    kcc.store %o1, %m : !kcc.ptr<f32>
    %r32 = kcc.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #b>
    %row = kcc.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32, #b> -> tensor<32x1xi32, #b>
    %col = kcc.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32, #b> -> tensor<1x32xi32, #b>
    %c32 = arith.constant dense<32> : tensor<32x1xi32, #b>
    %rs = arith.muli %row, %c32 : tensor<32x1xi32, #b>
    %rb = kcc.broadcast %rs : tensor<32x1xi32, #b> -> tensor<32x32xi32, #b>
    %cb = kcc.broadcast %col : tensor<1x32xi32, #b> -> tensor<32x32xi32, #b>
    %off = arith.addi %rb, %cb : tensor<32x32xi32, #b>
    %xp2 = kcc.splat %x : tensor<32x32x!kcc.ptr<f32>, #b>
    %xa2 = kcc.addptr %xp2, %off : tensor<32x32x!kcc.ptr<f32>, #b>, tensor<32x32xi32, #b>
    %v2 = kcc.load %xa2 {kcc.access_width = 4 : i32} : tensor<32x32x!kcc.ptr<f32>, #b>
    %e = math.exp %v2 : tensor<32x32xf32, #b>
    %s1 = kcc.reduce sum %e {axis = 1 : i32} : tensor<32x32xf32, #b> -> tensor<32xf32, #b>
    %s0 = kcc.reduce max %v2 {axis = 0 : i32} : tensor<32x32xf32, #b> -> tensor<32xf32, #b>
    %c2 = arith.constant 2 : i32
    %c34 = arith.constant 34 : i32
    %o2 = kcc.addptr %out, %c2 : !kcc.ptr<f32>, i32
    %o34 = kcc.addptr %out, %c34 : !kcc.ptr<f32>, i32
    %p2 = kcc.splat %o2 : tensor<32x!kcc.ptr<f32>, #b>
    %a2 = kcc.addptr %p2, %r32 : tensor<32x!kcc.ptr<f32>, #b>, tensor<32xi32, #b>
    kcc.store %a2, %s1 : tensor<32x!kcc.ptr<f32>, #b>
    %p34 = kcc.splat %o34 : tensor<32x!kcc.ptr<f32>, #b>
    %a34 = kcc.addptr %p34, %r32 : tensor<32x!kcc.ptr<f32>, #b>, tensor<32xi32, #b>
    kcc.store %a34, %s0 : tensor<32x!kcc.ptr<f32>, #b>
    return
  }
}
