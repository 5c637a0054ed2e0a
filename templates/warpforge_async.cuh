// warpforge device helpers: sm_90's asynchronous machinery as inline PTX (mbarriers, bulk copies, register
// reallocation, 16-byte shared accesses by window address). Kernels paste this text (their sources stay
// self-contained); each helper is one definition whose name the CPU emulation (tests/CudaOnCpu.h) replaces.
// Shared-memory operands are 32-bit shared-window addresses (__cvta_generic_to_shared).

// mbarrier of `count` arrivals per phase (one thread initialises; fence_mbar_init + a block barrier publish it).
static __device__ __forceinline__ void wfa_mbar_init(unsigned bar, unsigned count) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory"); }
static __device__ __forceinline__ void wfa_fence_mbar_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// One arrival (release: this thread's earlier shared-memory writes are visible to the threads that see the phase complete).
static __device__ __forceinline__ void wfa_mbar_arrive(unsigned bar) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory"); }
// One arrival that also expects `bytes` more of asynchronous copies (complete_tx) before the phase can complete.
static __device__ __forceinline__ void wfa_mbar_arrive_tx(unsigned bar, unsigned bytes) { asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory"); }
// Whether the phase of parity `parity` has completed (acquire); the caller loops.
static __device__ __forceinline__ bool wfa_mbar_try_wait(unsigned bar, unsigned parity) { unsigned ok; asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(ok) : "r"(bar), "r"(parity) : "memory"); return ok != 0; }
// Bulk copy of `bytes` (a multiple of 16; both addresses 16-byte aligned) from global to shared memory, completing
// on mbarrier `bar` (complete_tx of the bytes).
static __device__ __forceinline__ void wfa_bulk_g2s(unsigned dst, const void* src, unsigned bytes, unsigned bar) { asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory"); }
// A TMA tensor map (the driver's CUtensorMap, 128 bytes): a kernel's `const __grid_constant__` parameter.
#ifndef WF_CPU_TENSOR_MAP
struct __align__(64) wf_tensor_map { unsigned long long opaque[16]; };
#endif
// Tensor copy of the box at coordinates (c0, c1, c2, c3) (innermost first) of `map`'s tensor into shared memory at
// `dst`, laid out and swizzled as the map says (out-of-bounds elements are zeros), completing on mbarrier `bar` with
// the box's bytes.
static __device__ __forceinline__ void wfa_tma_load_4d(unsigned dst, const wf_tensor_map* map, int c0, int c1, int c2, int c3, unsigned bar) { asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];" :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar) : "memory"); }
// Per-thread register budget of this warpgroup (all its warps execute it with the same N, a multiple of 8 in 24..256).
template <int N> static __device__ __forceinline__ void wfa_setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(N)); }
template <int N> static __device__ __forceinline__ void wfa_setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" :: "n"(N)); }
// 16-byte shared loads and stores by window address.
static __device__ __forceinline__ uint4 wfa_lds128(unsigned a) { uint4 v; asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a) : "memory"); return v; }
static __device__ __forceinline__ void wfa_sts128(unsigned a, uint4 v) { asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory"); }
// Thread-block clusters (kernels declared __cluster_dims__): this block's rank in its cluster; every thread of every
// block of the cluster meets (release / acquire: shared-memory writes before it are visible to the cluster after it).
static __device__ __forceinline__ unsigned wfa_cluster_rank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
static __device__ __forceinline__ void wfa_cluster_sync() { asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory"); }
// One arrival (release, cluster scope) on the mbarrier at the same shared-window address in block `rank` of the cluster.
static __device__ __forceinline__ void wfa_mbar_arrive_remote(unsigned bar, unsigned rank) { asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\nmbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n}\n" :: "r"(bar), "r"(rank) : "memory"); }
// As wfa_mbar_try_wait, with cluster-scope acquire: what other blocks of the cluster released before arriving is visible.
static __device__ __forceinline__ bool wfa_mbar_try_wait_cluster(unsigned bar, unsigned parity) { unsigned ok; asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(ok) : "r"(bar), "r"(parity) : "memory"); return ok != 0; }
// Bulk copy multicast: the same bytes land at shared-window address `dst` of every block of the cluster whose bit is set
// in `mask`, each completing on its own mbarrier at address `bar`.
static __device__ __forceinline__ void wfa_bulk_g2s_multicast(unsigned dst, const void* src, unsigned bytes, unsigned bar, unsigned short mask) { asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;" :: "r"(dst), "l"(src), "r"(bytes), "r"(bar), "h"(mask) : "memory"); }
// Named barrier `id` (1..15) of `count` threads (a multiple of 32): they meet; id 0 is __syncthreads.
static __device__ __forceinline__ void wfa_bar_sync(unsigned id, unsigned count) { asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory"); }
// An arrival on named barrier `id` of `count` threads without waiting (the threads that bar.sync on it wait for it).
static __device__ __forceinline__ void wfa_bar_arrive(unsigned id, unsigned count) { asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(count) : "memory"); }
// Bulk store of `bytes` (a multiple of 16; both addresses 16-byte aligned) from shared to global memory, in this
// thread's open bulk group. The shared bytes must have passed a fence.proxy.async since they were written.
static __device__ __forceinline__ void wfa_bulk_s2g(void* dst, unsigned src, unsigned bytes) { asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(dst), "r"(src), "r"(bytes) : "memory"); }
static __device__ __forceinline__ void wfa_bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// This thread's bulk groups have read their shared sources (which may be written again) / have completed.
static __device__ __forceinline__ void wfa_bulk_wait_read0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
static __device__ __forceinline__ void wfa_bulk_wait0() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
