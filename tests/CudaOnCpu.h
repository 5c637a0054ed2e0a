#pragma once
// Generated CUDA run as C++ on the CPU, one std::thread per CUDA thread, blocks one after another: the test
// families' way to run a plan's own kernels against the CPU reference without a GPU. The shim defines what the
// kernels use (thread indices, __syncthreads and named barriers (bar.sync id, n: wf_bar_sync) as barriers, shared
// arrays as statics, atomics), and emulates the warp-wide instructions as the PTX ISA defines them (each lane posts
// its registers, the warp meets, each lane reads what it needs): __shfl_xor_sync, __reduce_add_sync, ldmatrix .x4,
// mma.sync m16n8k8 tf32, m16n8k16 f16 and m16n8k32 s8; and the asynchronous ones per thread at the latest moment the
// hardware may complete them: cp.async (the shared destination written at the wait) and wgmma m64nNk32 s8 / m64nNk16
// f16 from shared-memory descriptors (results at the wait; operands or accumulators changed in flight are reported as
// hazards, which fail the run). Inline PTX left in a kernel is an error: the caller replaces each helper's body with
// the shim's function. A kernel declared with __cluster_dims__(C, 1, 1) runs cluster after cluster, the C CTAs of a
// cluster at once, each in its own copy of the kernel's library (its own shared memory), with sm_90's cluster
// operations between them (wf_cluster_rank / _size / _sync, remote mbarrier arrives, multicast bulk copies).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <barrier>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <deque>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "TestUtil.h"
#include "warpforge/family.h"
#include "warpforge/launch_plan.h"

namespace warpforge::test {

inline const char* cudaOnCpuShim() {
  return R"(#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <vector>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
struct float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
inline float2 make_float2(float a, float b) { return {a, b}; }
struct alignas(16) double2 { double x, y; };
inline double2 make_double2(double a, double b) { return {a, b}; }
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) longlong2 { long long x, y; };
struct alignas(8) int2 { int x, y; };
inline longlong2 make_longlong2(long long a, long long b) { return {a, b}; }
inline int2 make_int2(int a, int b) { return {a, b}; }
struct alignas(16) int4 { int x, y, z, w; };
inline int4 make_int4(int a, int b, int c, int d) { return {a, b, c, d}; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
inline uint2 make_uint2(unsigned a, unsigned b) { return {a, b}; }
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
struct Dim { unsigned x = 0, y = 0, z = 0; };
thread_local Dim threadIdx, blockIdx;
Dim gridDim, blockDim;
thread_local std::barrier<>* wf_bar = nullptr;
thread_local std::barrier<>* wf_warp = nullptr;  // this thread's warp: warp-wide instructions meet here
extern "C" void wf_set(void* bar, void* warp, unsigned tx, unsigned bx, unsigned gx, unsigned bdx) {
  wf_bar = (std::barrier<>*)bar; wf_warp = (std::barrier<>*)warp; threadIdx.x = tx; blockIdx.x = bx; gridDim.x = gx; blockDim.x = bdx;
}
inline void __syncthreads() { wf_bar->arrive_and_wait(); }
// bar.sync id, n: the n threads of named barrier id meet (id 0 is __syncthreads). One std::barrier per id and count,
// made by its first arrival: a library's blocks run one after another, so an id serves one block at a time. The map
// is at namespace scope, one per loaded library (a function's static in an inline function would be one object across
// every kernel library the process loads, and the CTAs of a cluster run at once, each in its own copy of the
// library); the count is part of the key as a kernel may use an id with several counts.
static std::mutex wf_named_mutex;
static std::map<std::pair<unsigned, unsigned>, std::unique_ptr<std::barrier<>>> wf_named_bars;
inline std::barrier<>* wf_named_bar(unsigned id, unsigned count) {
  std::lock_guard<std::mutex> lock(wf_named_mutex);
  auto& slot = wf_named_bars[{id, count}];
  if (!slot) slot = std::make_unique<std::barrier<>>(count);
  return slot.get();
}
inline void wf_bar_sync(unsigned id, unsigned count) {
  if (id == 0) return __syncthreads();
  wf_named_bar(id, count)->arrive_and_wait();
}
// bar.arrive id, n: an arrival that does not wait (the phase completes once n threads arrived or synced).
inline void wf_bar_arrive(unsigned id, unsigned count) { (void)wf_named_bar(id, count)->arrive(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
// __syncthreads_or: every thread adds its flag, the block meets twice (read between the meetings; reset after).
static std::atomic<int> wf_or_count{0};
inline int __syncthreads_or(int p) {
  if (p) wf_or_count.fetch_add(1);
  wf_bar->arrive_and_wait();
  const int r = wf_or_count.load() != 0;
  wf_bar->arrive_and_wait();
  if (threadIdx.x == 0) wf_or_count.store(0);
  wf_bar->arrive_and_wait();
  return r;
}
// Shared memory: every __shared__ array (the dynamic one too) is a static in section wf_shared, aligned there as
// declared; a shared-window address is the offset in the section + 0x1000, so address bits below 4096 are those of
// the hardware's window (what wgmma's swizzle XORs). An anchor keeps the section present in every kernel.
#define __shared__ static __attribute__((section("wf_shared")))
__shared__ char wf_shared_anchor[16] __attribute__((used));
extern "C" char __start_wf_shared[];
extern "C" char __stop_wf_shared[];
inline unsigned long long __cvta_generic_to_shared(const void* p) { return (unsigned long long)((const char*)p - __start_wf_shared) + 0x1000u; }
inline void wf_hazard(const char* what);
// A window address outside the kernel's shared arrays is a hazard (read as the anchor instead), reported through `hz`
// (the hazard function of the library whose thread made the access: a peer CTA's one for cluster operations).
inline void* wf_shared_in(unsigned a, void (*hz)(const char*)) {
  if (a < 0x1000u || a - 0x1000u >= (unsigned)(__stop_wf_shared - __start_wf_shared)) {
    hz("shared-memory address outside the kernel's shared arrays");
    return __start_wf_shared;
  }
  return __start_wf_shared + (a - 0x1000u);
}
inline void* wf_shared(unsigned a) { return wf_shared_in(a, wf_hazard); }
// Hazards the emulation sees (an async operation's operands changed while in flight, a kernel that exits with
// one pending, ...): counted, the first described (and timed, so the runner names the earliest of a cluster's
// libraries); the runner fails the test on any.
static std::atomic<long long> wf_hazards{0};
static char wf_first_hazard[256];
static std::atomic<long long> wf_first_hazard_at{0};
inline void wf_hazard(const char* what) {
  if (wf_hazards.fetch_add(1) == 0) {
    wf_first_hazard_at.store((long long)std::chrono::steady_clock::now().time_since_epoch().count());
    std::snprintf(wf_first_hazard, sizeof wf_first_hazard, "thread %u of block %u: %s", threadIdx.x, blockIdx.x, what);
  }
}
extern "C" long long wf_hazard_count(const char** first) { *first = wf_first_hazard; return wf_hazards.load(); }
extern "C" long long wf_hazard_first_at() { return wf_first_hazard_at.load(); }
// __byte_perm(x, y, s): byte i of the result is byte (s >> 4 i) & 7 of the 8 bytes y:x.
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = (unsigned long long)y << 32 | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { return std::atomic_ref<unsigned long long>(*p).fetch_add(v); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline unsigned long long atomicExch(unsigned long long* p, unsigned long long v) { return std::atomic_ref<unsigned long long>(*p).exchange(v); }
inline unsigned atomicExch(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).exchange(v); }
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
// __fadd_rn: a + b rounded once, never contracted into a multiply-add (the volatile keeps it a separate addition).
inline float __fadd_rn(float a, float b) { volatile float s = a + b; return s; }
// __syncwarp(mask) (the full warp): the lanes meet (what each lane did before it happens before what any lane does after).
inline void __syncwarp(unsigned) { wf_warp->arrive_and_wait(); }
// Warp-wide instructions: each lane posts its registers, the warp meets, each lane reads what it needs, the warp meets again.
static unsigned wf_posted[32][32][6];
  // [warp][lane][register]
inline float __shfl_xor_sync(unsigned, float v, int mask) {
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  wf_posted[w][l][0] = __float_as_uint(v);
  wf_warp->arrive_and_wait();
  const float r = __uint_as_float(wf_posted[w][l ^ mask][0]);
  wf_warp->arrive_and_wait();
  return r;
}
inline int __shfl_xor_sync(unsigned, int v, int mask) {
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  std::memcpy(&wf_posted[w][l][0], &v, 4);
  wf_warp->arrive_and_wait();
  int r;
  std::memcpy(&r, &wf_posted[w][l ^ mask][0], 4);
  wf_warp->arrive_and_wait();
  return r;
}
template <class T> inline T __shfl_sync(unsigned, T v, int src) {
  static_assert(sizeof(T) == 4, "32-bit values");
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  std::memcpy(&wf_posted[w][l][0], &v, 4);
  wf_warp->arrive_and_wait();
  T r;
  std::memcpy(&r, &wf_posted[w][src & 31][0], 4);
  wf_warp->arrive_and_wait();
  return r;
}
template <class T> inline T __shfl_down_sync(unsigned, T v, int delta) {
  static_assert(sizeof(T) == 4, "32-bit values");
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  std::memcpy(&wf_posted[w][l][0], &v, 4);
  wf_warp->arrive_and_wait();
  T r;
  std::memcpy(&r, &wf_posted[w][l + delta < 32 ? l + delta : l][0], 4);
  wf_warp->arrive_and_wait();
  return r;
}
inline unsigned __reduce_add_sync(unsigned, unsigned v) {
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  wf_posted[w][l][0] = v;
  wf_warp->arrive_and_wait();
  unsigned s = 0;
  for (int i = 0; i < 32; ++i) s += wf_posted[w][i][0];
  wf_warp->arrive_and_wait();
  return s;
}
// ldmatrix.sync.aligned.m8n8.x4.shared.b16: lane L gives the shared address of row L % 8 of matrix L / 8; register i
// of lane l receives bytes 4 (l % 4) .. + 3 of row l / 4 of matrix i.
inline void wf_ldsm4(unsigned a, unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3) {
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  wf_posted[w][l][0] = a;
  wf_warp->arrive_and_wait();
  unsigned* r[4] = {&r0, &r1, &r2, &r3};
  unsigned got[4];
  for (int i = 0; i < 4; ++i) std::memcpy(&got[i], (char*)wf_shared(wf_posted[w][8 * i + l / 4][0]) + 4 * (l % 4), 4);
  wf_warp->arrive_and_wait();
  for (int i = 0; i < 4; ++i) *r[i] = got[i];
}
// mma.sync.aligned.m16n8kK.row.col (g = lane / 4, t = lane % 4, E = K / 8 elements per 32-bit register) as the PTX ISA
// lays out its fragments: A a0 rows g, a1 rows g + 8 (k < K / 2), a2, a3 the same for k >= K / 2, each holding k = E t ..
// E t + E - 1 (mod K / 2); B b0 (k < K / 2), b1 (k >= K / 2) of column g, the same k per lane; C c0 (g, 2t), c1 (g, 2t + 1),
// c2 (g + 8, 2t), c3 (g + 8, 2t + 1). `value(word, e)` decodes element e of a register; products and sum in double.
template <int K, class Value>
inline void wf_mma_m16n8(double (&r)[4], const double (&c)[4], const unsigned (&mine)[6], Value value) {
  constexpr int E = K / 8, H = K / 2;
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  std::memcpy(wf_posted[w][l], mine, sizeof mine);
  wf_warp->arrive_and_wait();
  auto A = [&](int row, int k) { return value(wf_posted[w][(row % 8) * 4 + (k % H) / E][(row >= 8 ? 1 : 0) + (k >= H ? 2 : 0)], k % E); };
  auto B = [&](int k, int n) { return value(wf_posted[w][n * 4 + (k % H) / E][4 + (k >= H ? 1 : 0)], k % E); };
  const int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
    double s = c[i];
    for (int k = 0; k < K; ++k) s += A(row, k) * B(k, col);
    r[i] = s;
  }
  wf_warp->arrive_and_wait();
}
// cvt.rna.tf32.f32: nearest, ties away from zero, to 10 mantissa bits.
inline unsigned wf_cvt_rna_tf32(float x) { return (__float_as_uint(x) + 0x1000u) & 0xffffe000u; }
// m16n8k8 tf32 -> f32: operands truncated to tf32, the sum exact, then f32.
inline void wf_mma_tf32(float4& c, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
  double r[4];
  wf_mma_m16n8<8>(r, {c.x, c.y, c.z, c.w}, {a0, a1, a2, a3, b0, b1}, [](unsigned u, int) { return (double)__uint_as_float(u & 0xffffe000u); });
  c = {(float)r[0], (float)r[1], (float)r[2], (float)r[3]};
}
// IEEE half bits -> double (exact).
inline double wf_half(unsigned h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double v = e == 0 ? std::ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp((double)(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}
// m16n8k16 f16 -> f32 (the hardware rounds along the way: the tests bound the difference).
inline void wf_mma_f16(float& d0, float& d1, float& d2, float& d3, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
  double r[4];
  wf_mma_m16n8<16>(r, {d0, d1, d2, d3}, {a0, a1, a2, a3, b0, b1}, [](unsigned u, int e) { return wf_half((u >> (16 * e)) & 0xffff); });
  d0 = (float)r[0], d1 = (float)r[1], d2 = (float)r[2], d3 = (float)r[3];
}
// m16n8k32 s8 -> s32: exact (int32 wrap as the hardware's).
inline void wf_mma_s8(int& d0, int& d1, int& d2, int& d3, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
  double r[4];
  wf_mma_m16n8<32>(r, {(double)d0, (double)d1, (double)d2, (double)d3}, {a0, a1, a2, a3, b0, b1},
                   [](unsigned u, int e) { return (double)(signed char)((u >> (8 * e)) & 0xff); });
  int* out[4] = {&d0, &d1, &d2, &d3};
  for (int i = 0; i < 4; ++i) *out[i] = (int)(unsigned)(unsigned long long)(long long)r[i];
}
// cp.async (16 / 8 / 4 bytes, zero-filled where not valid): the source is read at the copy, the shared destination
// written when the thread's wait retires its group (the latest the hardware may write it: a read before the wait sees
// stale data; the destination holds a poison pattern from the copy's issue, which the ISA leaves undefined until then,
// so a wgmma still reading a buffer a new copy targets sees its operands change). wait_group N retires the oldest
// groups until N remain; ungrouped copies stay pending. Data landed by a wait must pass a fence.proxy.async of the
// same thread before its next wgmma (the async proxy reads it).
struct WfCopy {
  void* dst;
  int bytes;
  unsigned char data[16];
};
thread_local std::vector<WfCopy> wf_cp_open;
thread_local std::deque<std::vector<WfCopy>> wf_cp_groups;
thread_local bool wf_landed_unfenced = false;
// cp.async with a source size: `read` bytes (0..bytes) copied, the rest of the chunk zero-filled.
inline void wf_cp_async_zfill(void* dst, const void* src, int bytes, int read) {
  WfCopy c{dst, bytes, {}};
  if (read > 0) std::memcpy(c.data, src, read);
  std::memset(dst, 0xa5, bytes);
  wf_cp_open.push_back(c);
}
inline void wf_cp_async_zfill(unsigned dst, const void* src, int bytes, int read) { wf_cp_async_zfill(wf_shared(dst), src, bytes, read); }
inline void wf_cp_async(void* dst, const void* src, int bytes, bool valid) { wf_cp_async_zfill(dst, src, bytes, valid ? bytes : 0); }
inline void wf_cp_commit() { wf_cp_groups.push_back(std::move(wf_cp_open)), wf_cp_open.clear(); }
inline void wf_cp_wait(int n) {
  for (; (int)wf_cp_groups.size() > n; wf_cp_groups.pop_front())
    for (const WfCopy& c : wf_cp_groups.front()) std::memcpy(c.dst, c.data, c.bytes), wf_landed_unfenced = true;
}
inline void wf_fence_proxy_async() { wf_landed_unfenced = false; }
// wgmma.mma_async m64nNk(32 bytes) with A and B in shared memory, K-major, through descriptors (start >> 4 in bits
// 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, swizzle mode in 62-63). Byte kb of row r: no swizzle, core matrices of
// 8 rows x 16 bytes: start + (r / 8) SBO + (kb / 16) LBO + (r % 8) 16 + kb % 16; 128-byte swizzle: start + (r / 8) SBO +
// (r % 8) 128 + kb, then address bits 4-6 XOR bits 7-9. Accumulators of warp w of the warpgroup, lane (g, t), register
// i: row 16 w + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2 t + i % 2. Issued ops compute the product at issue and again
// when a wait retires their group: a difference (shared operands rewritten in flight) or accumulator registers
// changed in flight are hazards; an op without a wgmma.fence since the last wait is one too.
inline const unsigned char* wf_wgmma_byte(unsigned long long desc, int r, int kb) {
  const unsigned start = (unsigned)(desc & 0x3fff) << 4, lbo = (unsigned)(desc >> 16 & 0x3fff) << 4, sbo = (unsigned)(desc >> 32 & 0x3fff) << 4;
  unsigned a = 0;
  switch ((int)(desc >> 62)) {
    case 0: a = start + (r / 8) * sbo + (kb / 16) * lbo + (r % 8) * 16 + kb % 16; break;
    case 1: a = start + (r / 8) * sbo + (r % 8) * 128 + kb, a ^= (a >> 7 & 7) << 4; break;
    case 2: a = start + (r / 8) * sbo + (r % 8) * 64 + kb, a ^= (a >> 7 & 3) << 4; break;
    case 3: a = start + (r / 8) * sbo + (r % 8) * 32 + kb, a ^= (a >> 7 & 1) << 4; break;
  }
  return (const unsigned char*)wf_shared(a);
}
struct WfWgmma {
  void* d;
  int regs;
  bool f16;
  unsigned long long da, db;
  std::vector<unsigned> a;  // A from registers: the warp's 32 lanes x 4 words (empty: A through da)
  std::vector<double> product;
  std::vector<unsigned> before;  // the accumulator registers' bits at issue
};
thread_local std::vector<WfWgmma> wf_wg_open;
thread_local std::deque<std::vector<WfWgmma>> wf_wg_groups;
thread_local bool wf_wg_fenced = false;
// A from registers (`a` non-empty): warp w's rows 16 w .. 16 w + 15 in the m16nK A fragment of mma.sync (lane 4 (row % 8)
// + (k % (K / 2)) / E, register (row >= 8) + 2 (k >= K / 2), element k % E; E = 2 f16 or 4 s8 per register).
inline std::vector<double> wf_wgmma_product(int regs, bool f16, unsigned long long da, unsigned long long db, const std::vector<unsigned>& a) {
  const int tw = threadIdx.x % 128, w = tw / 32, g = tw % 32 / 4, t = tw % 4, K = f16 ? 16 : 32, E = f16 ? 2 : 4, H = K / 2;
  auto value = [&](const unsigned char* p) { return f16 ? wf_half(p[0] | (unsigned)p[1] << 8) : (double)(signed char)p[0]; };
  auto aValue = [&](int row, int k) {
    if (a.empty()) return value(wf_wgmma_byte(da, row, k * (f16 ? 2 : 1)));
    const unsigned word = a[(size_t)(4 * ((row % 16) % 8 * 4 + (k % H) / E) + (row % 16 >= 8 ? 1 : 0) + (k >= H ? 2 : 0))];
    const unsigned char bytes[4] = {(unsigned char)word, (unsigned char)(word >> 8), (unsigned char)(word >> 16), (unsigned char)(word >> 24)};
    return value(bytes + (k % E) * (f16 ? 2 : 1));
  };
  std::vector<double> out((size_t)regs);
  for (int i = 0; i < regs; ++i) {
    const int row = 16 * w + g + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * t + i % 2;
    double s = 0;
    for (int k = 0; k < K; ++k) s += aValue(row, k) * value(wf_wgmma_byte(db, col, k * (f16 ? 2 : 1)));
    out[(size_t)i] = s;
  }
  return out;
}
inline std::vector<unsigned> wf_regs(const void* d, int regs) {
  std::vector<unsigned> v((size_t)regs);
  std::memcpy(v.data(), d, 4 * (size_t)regs);
  return v;
}
inline void wf_wgmma_fence() { wf_wg_fenced = true; }
inline void wf_wgmma_issue(void* d, int regs, bool f16, unsigned long long da, unsigned long long db, std::vector<unsigned> a = {}) {
  if (!wf_wg_fenced) wf_hazard("wgmma issued without a wgmma.fence since the last wait");
  if (wf_landed_unfenced) wf_hazard("wgmma issued after cp.async data landed without a fence.proxy.async");
  std::vector<double> product = wf_wgmma_product(regs, f16, da, db, a);
  wf_wg_open.push_back({d, regs, f16, da, db, std::move(a), std::move(product), wf_regs(d, regs)});
}
// The warp's A registers as the lanes hold them at issue (each lane posts its four, the warp meets).
inline std::vector<unsigned> wf_warp_a(unsigned a0, unsigned a1, unsigned a2, unsigned a3) {
  const unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
  wf_posted[w][l][0] = a0, wf_posted[w][l][1] = a1, wf_posted[w][l][2] = a2, wf_posted[w][l][3] = a3;
  wf_warp->arrive_and_wait();
  std::vector<unsigned> a(128);
  for (int i = 0; i < 32; ++i)
    for (int r = 0; r < 4; ++r) a[(size_t)(4 * i + r)] = wf_posted[w][i][r];
  wf_warp->arrive_and_wait();
  return a;
}
// s32 accumulators: s8 operands (k = 32); f32 accumulators: f16 operands (k = 16). A through a descriptor or registers.
template <int R> inline void wf_wgmma(int (&d)[R], unsigned long long da, unsigned long long db) { wf_wgmma_issue(d, R, false, da, db); }
template <int R> inline void wf_wgmma(float (&d)[R], unsigned long long da, unsigned long long db) { wf_wgmma_issue(d, R, true, da, db); }
template <int R> inline void wf_wgmma(int (&d)[R], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned long long db) {
  wf_wgmma_issue(d, R, false, 0, db, wf_warp_a(a0, a1, a2, a3));
}
template <int R> inline void wf_wgmma(float (&d)[R], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned long long db) {
  wf_wgmma_issue(d, R, true, 0, db, wf_warp_a(a0, a1, a2, a3));
}
// Plain shared loads and stores by window address or generic pointer.
inline unsigned wf_lds32(unsigned a) { unsigned v; std::memcpy(&v, wf_shared(a), 4); return v; }
inline unsigned wf_lds16(unsigned a) { unsigned short v; std::memcpy(&v, wf_shared(a), 2); return v; }
inline void wf_sts128(void* p, unsigned a, unsigned b, unsigned c, unsigned d) { const unsigned v[4] = {a, b, c, d}; std::memcpy(p, v, 16); }
inline void wf_wgmma_commit() { wf_wg_groups.push_back(std::move(wf_wg_open)), wf_wg_open.clear(); }
inline void wf_wgmma_wait(int n) {
  auto pending = [](auto&& each) {
    for (auto& g : wf_wg_groups)
      for (auto& op : g) each(op);
    for (auto& op : wf_wg_open) each(op);
  };
  pending([](WfWgmma& op) {
    if (wf_regs(op.d, op.regs) != op.before) wf_hazard("wgmma accumulator registers changed while the wgmma was in flight");
  });
  for (; (int)wf_wg_groups.size() > n; wf_wg_groups.pop_front())
    for (const WfWgmma& op : wf_wg_groups.front()) {
      const std::vector<double> again = wf_wgmma_product(op.regs, op.f16, op.da, op.db, op.a);
      if (std::memcmp(again.data(), op.product.data(), again.size() * sizeof(double)) != 0) wf_hazard("wgmma shared-memory operands changed while the wgmma was in flight");
      for (int i = 0; i < op.regs; ++i) {
        if (op.f16) ((float*)op.d)[i] = (float)((double)((float*)op.d)[i] + op.product[(size_t)i]);
        else ((int*)op.d)[i] = (int)(unsigned)((long long)((int*)op.d)[i] + (long long)op.product[(size_t)i]);
      }
    }
  pending([](WfWgmma& op) { op.before = wf_regs(op.d, op.regs); });  // still in flight: from the retired ops' results on
  wf_wg_fenced = false;
}
// sm_90's asynchronous machinery. mbarriers live in a table keyed by their shared-window address: expected and pending
// arrivals, tx-count, completed phases, and the bulk copies (cp.async.bulk) that complete on them. A bulk copy poisons
// its destination at issue and writes it only when a waiter needs it to complete the phase (the latest moment the
// hardware may); try_wait.parity(p) is true once the phase of parity p completed, and records that phase as acquired
// by the thread. 16-byte stores through wf_sts128 are stamped with the mbarrier phase the thread's next arrive
// releases them in and whether a fence.proxy.async came between them and that arrive; a wgmma whose operands carry
// a stamp its warpgroup did not acquire, an unreleased or an unfenced one, is a hazard; so is a wait that never
// completes (a deadlock: reported, then the thread proceeds), a misaligned bulk copy, copies pending when the block's
// last thread returns, and setmaxnreg values that are not the same across a warpgroup or not a multiple of 8 in 24..256.
struct WfBulk {
  unsigned char* dst;
  const unsigned char* src;
  unsigned bytes;
};
struct WfMbar {
  int expected = 0, pending = 0;
  long long tx = 0, completed = 0;
  std::vector<WfBulk> copies;
};
static std::mutex wf_mb_mutex;
static std::condition_variable wf_mb_cv;
static std::map<unsigned, WfMbar> wf_mbars;
// Per 16-byte shared chunk: valid 63, fenced 62, phase 32..61, barrier 0..31. (State at namespace scope: a function's
// static in an inline function would be one object across every kernel library the process loads.)
static std::unique_ptr<std::atomic<unsigned long long>[]> wf_stamps(new std::atomic<unsigned long long>[(size_t)(__stop_wf_shared - __start_wf_shared) / 16 + 1]());
static std::mutex wf_nreg_mutex;
static std::map<std::pair<unsigned, unsigned>, int> wf_nreg_seen;  // (block, warpgroup) -> setmaxnreg value
static std::atomic<unsigned> wf_threads_done{0};
static std::atomic<bool> wf_deadlocked{false};
// When an mbarrier last moved (an arrival, a copy issued, a phase completed), in steady_clock ticks: a wait is a
// deadlock only when neither it nor any mbarrier has moved for 10 s (a loaded machine may starve a producer that long).
static std::atomic<long long> wf_mb_progress{0};
inline void wf_mb_moved() { wf_mb_progress.store(std::chrono::steady_clock::now().time_since_epoch().count()); }
thread_local std::vector<std::pair<unsigned, bool>> wf_unreleased;     // chunks stored since the last arrive, fenced since
thread_local std::map<unsigned, long long> wf_acquired;                // barrier -> latest completed phase this thread waited for
thread_local std::chrono::steady_clock::time_point wf_wait_since;
thread_local bool wf_waiting = false;
inline std::atomic<unsigned long long>& wf_stamp(unsigned a) { return wf_stamps[(a - 0x1000u) / 16]; }
inline void wf_mbar_complete(WfMbar& b) { ++b.completed, b.pending = b.expected, wf_mb_moved(); }
inline void wf_mbar_init(unsigned bar, unsigned count) {
  std::lock_guard<std::mutex> lock(wf_mb_mutex);
  if (bar % 8) wf_hazard("mbarrier not 8-byte aligned");
  WfMbar& b = wf_mbars[bar];
  if (!b.copies.empty()) wf_hazard("mbarrier initialised while bulk copies complete on it");
  b = WfMbar{(int)count, (int)count, 0, 0, {}};
}
// Set (under wf_mb_mutex) when the last thread of this library's CTA returns, cleared when the runner starts the
// next: a peer CTA's arrive or bulk copy on a CTA that has returned is a hazard.
static bool wf_cta_returned = false;
// An arrive (with `bytes` of expected tx) on this library's mbarrier `bar`; `release` (the arriving thread is one of
// this CTA's) stamps the thread's unreleased stores with the phase. Hazards through `hz` (the arriving thread's
// library's wf_hazard).
inline void wf_mbar_arrive_in(unsigned bar, unsigned bytes, bool release, void (*hz)(const char*)) {
  std::lock_guard<std::mutex> lock(wf_mb_mutex);
  if (!release && wf_cta_returned) { hz("remote mbarrier arrive on a peer CTA that has returned"); return; }
  auto it = wf_mbars.find(bar);
  if (it == wf_mbars.end()) { hz("arrive on an mbarrier that was never initialised"); return; }
  WfMbar& b = it->second;
  if (release) {
    for (const auto& [chunk, fenced] : wf_unreleased)
      wf_stamp(chunk).store(1ull << 63 | (fenced ? 1ull << 62 : 0) | (unsigned long long)(b.completed & 0x3fffffff) << 32 | bar);
    wf_unreleased.clear();
  }
  b.tx += bytes;
  wf_mb_moved();
  if (--b.pending < 0) hz("more arrivals on an mbarrier phase than it expects");
  if (b.pending == 0 && b.tx == 0) wf_mbar_complete(b);
  wf_mb_cv.notify_all();
}
inline void wf_mbar_arrive_tx(unsigned bar, unsigned bytes) { wf_mbar_arrive_in(bar, bytes, true, wf_hazard); }
inline void wf_mbar_arrive(unsigned bar) { wf_mbar_arrive_tx(bar, 0); }
inline bool wf_mbar_try_wait(unsigned bar, unsigned parity) {
  std::unique_lock<std::mutex> lock(wf_mb_mutex);
  for (int round = 0; round < 2; ++round) {
    auto it = wf_mbars.find(bar);
    if (it == wf_mbars.end()) { wf_hazard("wait on an mbarrier that was never initialised"); return true; }
    WfMbar& b = it->second;
    // The phase's arrivals are in and only its copies' bytes are missing: the copies complete now.
    long long copied = 0;
    for (const WfBulk& c : b.copies) copied += c.bytes;
    if ((b.completed & 1) == (long long)(parity & 1) && b.pending == 0 && b.tx > 0 && copied == b.tx) {
      for (const WfBulk& c : b.copies) std::memcpy(c.dst, c.src, c.bytes);
      b.copies.clear(), b.tx = 0;
      wf_mbar_complete(b);
      wf_mb_cv.notify_all();
    }
    if ((b.completed & 1) != (long long)(parity & 1)) {
      wf_acquired[bar] = b.completed - 1;
      wf_waiting = false;
      return true;
    }
    if (round == 0) wf_mb_cv.wait_for(lock, std::chrono::milliseconds(2));
  }
  // A wait that makes no progress for 10 s while no mbarrier moves either is a deadlock: reported once, then every
  // wait of the block returns.
  if (!wf_waiting) wf_waiting = true, wf_wait_since = std::chrono::steady_clock::now();
  const auto now = std::chrono::steady_clock::now();
  const auto moved = std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(wf_mb_progress.load()));
  if (wf_deadlocked.load() ||
      (now - wf_wait_since > std::chrono::seconds(10) && now - moved > std::chrono::seconds(10))) {
    if (!wf_deadlocked.exchange(true)) wf_hazard("an mbarrier wait never completes - a deadlock: arrivals or copy bytes missing");
    wf_waiting = false;
    return true;
  }
  return false;
}
// A bulk copy into this library's CTA (`peer`: issued by another CTA of the cluster, hazards through its `hz`).
inline void wf_bulk_g2s_in(unsigned dst, const void* src, unsigned bytes, unsigned bar, bool peer, void (*hz)(const char*)) {
  if (dst % 16 || (unsigned long long)src % 16 || bytes % 16 || bytes == 0) hz("bulk copy with a size or address not a multiple of 16");
  unsigned char* d = (unsigned char*)wf_shared_in(dst, hz);
  if (dst - 0x1000u + bytes > (unsigned)(__stop_wf_shared - __start_wf_shared)) { hz("bulk copy past the kernel's shared arrays"); return; }
  std::unique_lock<std::mutex> lock(wf_mb_mutex, std::defer_lock);
  if (peer) {  // checked and poisoned under the lock: the CTA's last thread cannot return in between
    lock.lock();
    if (wf_cta_returned) { hz("multicast bulk copy into a peer CTA that has returned"); return; }
  }
  std::memset(d, 0xa5, bytes);
  if (!peer) lock.lock();
  auto it = wf_mbars.find(bar);
  if (it == wf_mbars.end()) { hz("bulk copy completing on an mbarrier that was never initialised"); return; }
  it->second.copies.push_back({d, (const unsigned char*)src, bytes});
  wf_mb_moved();
  // Stamped with the phase the copy completes (the barrier's current one) and bit 31, "written by a bulk copy": a
  // 16-byte shared load of it by a thread that has not waited for that phase is a hazard (wf_lds128), whichever
  // thread's wait happened to complete the copy first.
  const unsigned long long stamp =
      1ull << 63 | 1ull << 62 | (unsigned long long)(it->second.completed & 0x3fffffff) << 32 | 0x80000000ull | bar;
  for (unsigned a = dst; a < dst + bytes; a += 16) wf_stamp(a).store(stamp);
}
inline void wf_bulk_g2s(unsigned dst, const void* src, unsigned bytes, unsigned bar) { wf_bulk_g2s_in(dst, src, bytes, bar, false, wf_hazard); }
// cp.async.bulk.tensor (tile mode, uint8 elements) through a tensor map in the CPU form runKernelOnCpu builds: m[0]
// the base, m[1] the rank, m[2..6] the dims, m[7..10] the byte strides of dims 1.., m[11..15] the box, m[16] the
// swizzle in bytes. The box is gathered at issue (zeros out of bounds; the global input does not change while a
// kernel runs) and laid out as the hardware does (innermost first; 16-byte chunk address bits 4.. XOR bits 7.. under
// a swizzle), then lands as one bulk copy of the box's bytes completing on `bar`.
inline void wf_tma_load(unsigned dst, const unsigned long long* m, const int* c, unsigned bar) {
  static std::mutex boxes_mutex;
  static std::deque<std::vector<unsigned char>> boxes;  // kept until the library unloads: copies land later
  const int rank = (int)m[1];
  const unsigned sw = (unsigned)m[16];
  long long bytes = 1;
  for (int d = 0; d < rank; ++d) bytes *= (long long)m[11 + d];
  if (sw && dst % (8 * sw)) wf_hazard("tensor copy with a swizzle into shared memory not aligned to its pattern");
  std::vector<unsigned char> box((std::size_t)bytes);
  const unsigned char* base = (const unsigned char*)m[0];
  for (long long i = 0; i < bytes; ++i) {
    long long rest = i, at = 0;
    bool in = true;
    for (int d = 0; d < rank; ++d) {
      const long long x = c[d] + rest % (long long)m[11 + d];
      rest /= (long long)m[11 + d];
      in = in && x >= 0 && x < (long long)m[2 + d];
      at += d ? x * (long long)m[6 + d] : x;
    }
    long long o = i;
    if (sw) o ^= ((o >> 7) & (sw / 16 - 1)) << 4;
    box[(std::size_t)o] = in ? base[at] : 0;
  }
  std::lock_guard<std::mutex> lock(boxes_mutex);
  boxes.push_back(std::move(box));
  wf_bulk_g2s(dst, boxes.back().data(), (unsigned)bytes, bar);
}
inline void wf_tma_load_4d(unsigned dst, const unsigned long long* m, int c0, int c1, int c2, int c3, unsigned bar) {
  if (m[1] != 4) wf_hazard("a 4-d tensor copy through a tensor map of another rank");
  const int c[4] = {c0, c1, c2, c3};
  wf_tma_load(dst, m, c, bar);
}
thread_local std::vector<unsigned> wf_unfenced;  // chunks this thread stored since its last fence.proxy.async
inline void wf_sts128(unsigned a, uint4 v) {
  if (a % 16) wf_hazard("16-byte shared store not 16-byte aligned");
  if (a < 0x1000u || a - 0x1000u + 16 > (unsigned)(__stop_wf_shared - __start_wf_shared)) return wf_hazard("16-byte shared store outside the kernel's shared arrays");
  std::memcpy(wf_shared(a), &v, 16);
  wf_stamp(a).store(1ull << 63);  // stored, not yet released
  wf_unreleased.push_back({a, false});
  wf_unfenced.push_back(a);
}
inline uint4 wf_lds128(unsigned a) {
  if (a % 16) wf_hazard("16-byte shared load not 16-byte aligned");
  const unsigned long long st = wf_stamp(a).load();
  if (st >> 63 && st & 0x80000000ull) {
    auto it = wf_acquired.find((unsigned)(st & 0x7fffffffu));
    if (it == wf_acquired.end() || it->second < (long long)(st >> 32 & 0x3fffffff))
      wf_hazard("16-byte shared load of a bulk copy's data before this thread waited for its mbarrier phase");
  }
  uint4 v;
  std::memcpy(&v, wf_shared(a), 16);
  return v;
}
// fence.proxy.async: this thread's stores so far (and its landed cp.async data) are visible to the async proxy.
inline void wf_proxy_fence() {
  wf_fence_proxy_async();
  for (auto& u : wf_unreleased) u.second = true;
  // Stored and fenced, not (yet) released by an arrive: what a bulk store may read.
  for (unsigned a : wf_unfenced) {
    unsigned long long stored = 1ull << 63;
    wf_stamp(a).compare_exchange_strong(stored, 1ull << 63 | 1ull << 62);
  }
  wf_unfenced.clear();
}
// cp.async.bulk stores (shared -> global, bulk groups): the source is checked at issue (16-byte stores fenced since
// they were written) and read when the thread's wait retires its group, the latest the hardware may read it; a source
// that changed since the issue (written too late, or rewritten before that wait) is a hazard. wait_group(.read) N
// retires the oldest groups until N remain.
struct WfBulkStore {
  unsigned char* dst;
  unsigned src, bytes;
  std::vector<unsigned char> issued;  // the source at issue: a source that changes before the read's wait is a race
};
thread_local std::vector<WfBulkStore> wf_bs_open;
thread_local std::deque<std::vector<WfBulkStore>> wf_bs_groups;
inline void wf_bulk_s2g(void* dst, unsigned src, unsigned bytes) {
  if (src % 16 || (unsigned long long)dst % 16 || bytes % 16 || bytes == 0) return wf_hazard("bulk store with a size or address not a multiple of 16");
  if (src < 0x1000u || src - 0x1000u + bytes > (unsigned)(__stop_wf_shared - __start_wf_shared)) return wf_hazard("bulk store from outside the kernel's shared arrays");
  for (unsigned a = src; a < src + bytes; a += 16) {
    const unsigned long long st = wf_stamp(a).load();
    if (!(st >> 63) || st & 0x80000000ull) return wf_hazard("bulk store of shared bytes no 16-byte store wrote");
    if (!(st >> 62 & 1)) return wf_hazard("bulk store of shared data stored without a fence.proxy.async since");
  }
  const unsigned char* from = (const unsigned char*)wf_shared(src);
  wf_bs_open.push_back({(unsigned char*)dst, src, bytes, std::vector<unsigned char>(from, from + bytes)});
}
inline void wf_bulk_commit() { wf_bs_groups.push_back(std::move(wf_bs_open)), wf_bs_open.clear(); }
inline void wf_bulk_wait(int n) {
  for (; (int)wf_bs_groups.size() > n; wf_bs_groups.pop_front())
    for (const WfBulkStore& b : wf_bs_groups.front()) {
      if (std::memcmp(b.issued.data(), wf_shared(b.src), b.bytes) != 0)
        wf_hazard("a bulk store's shared source changed between its issue and the wait for its read");
      std::memcpy(b.dst, wf_shared(b.src), b.bytes);
    }
}
// Checked by one thread of the warpgroup (its waits are the warpgroup's): every 16-byte chunk a wgmma reads through
// the descriptors (rows x 32 bytes of A and of B).
inline void wf_wgmma_acquired(unsigned long long da, int rowsA, unsigned long long db, int rowsB) {
  if (threadIdx.x % 128) return;
  for (int op = 0; op < 2; ++op)
    for (int r = 0; r < (op ? rowsB : rowsA); ++r)
      for (int kb = 0; kb < 32; kb += 16) {
        const unsigned a = (unsigned)__cvta_generic_to_shared(wf_wgmma_byte(op ? db : da, r, kb));
        const unsigned long long st = wf_stamp(a).load();
        if (!(st >> 63) || st & 0x80000000ull) continue;  // not written by wf_sts128 (bulk copies, plain stores)
        const unsigned bar = (unsigned)(st & 0xffffffffu);
        const long long phase = (long long)(st >> 32 & 0x3fffffff);
        auto it = wf_acquired.find(bar);
        if (bar == 0) return wf_hazard("wgmma reads shared data a thread stored but has not released - no mbarrier arrive since");
        if (it == wf_acquired.end() || it->second < phase) return wf_hazard("wgmma reads shared data released in an mbarrier phase its warpgroup did not wait for");
        if (!(st >> 62 & 1)) return wf_hazard("wgmma reads shared data stored without a fence.proxy.async before its release");
      }
}
inline void wf_setmaxnreg(int n) {
  if (n % 8 || n < 24 || n > 256) wf_hazard("setmaxnreg value not a multiple of 8 in 24..256");
  std::lock_guard<std::mutex> lock(wf_nreg_mutex);
  auto [it, fresh] = wf_nreg_seen.insert({{blockIdx.x, threadIdx.x / 128}, n});
  if (!fresh && it->second != n) wf_hazard("setmaxnreg with different values in one warpgroup");
}
// setmaxnreg's register pool: every warpgroup starts at the launch count, the most __launch_bounds__(blockDim, 1)
// lets each thread hold (64K registers / threads, a multiple of 8, at most 255); setmaxnreg.dec releases registers to
// the block's pool and setmaxnreg.inc waits until the pool holds what it asks for. Increments beyond what the block's
// decrements release would wait forever on the GPU: a hazard (checked when the block's last thread returns).
inline void wf_setmaxnreg_pool_check() {
  const int launch = std::min(255, (int)(65536 / blockDim.x)) / 8 * 8;
  long long released = 0, requested = 0;
  std::lock_guard<std::mutex> lock(wf_nreg_mutex);
  for (auto it = wf_nreg_seen.begin(); it != wf_nreg_seen.end();) {
    if (it->first.first != blockIdx.x) { ++it; continue; }
    (it->second < launch ? released : requested) += 128LL * (it->second < launch ? launch - it->second : it->second - launch);
    it = wf_nreg_seen.erase(it);
  }
  if (requested > released) wf_hazard("setmaxnreg.inc asks for more registers than the block's setmaxnreg.dec release: the GPU would wait forever");
}
// When the block's last thread returns: bulk copies still pending are a hazard.
inline void wf_async_thread_exit() {
  if (wf_threads_done.fetch_add(1) + 1 < blockDim.x) return;
  wf_threads_done.store(0);
  wf_setmaxnreg_pool_check();
  std::lock_guard<std::mutex> lock(wf_mb_mutex);
  wf_cta_returned = true;
  for (auto& [bar, b] : wf_mbars)
    if (!b.copies.empty()) wf_hazard("kernel returned with bulk copies not completed - no wait on their mbarrier phase"), b.copies.clear();
  // The next block starts its mbarriers' phases at 0 again: this block's bulk-copy stamps mean nothing to it.
  const size_t chunks = (size_t)(__stop_wf_shared - __start_wf_shared) / 16 + 1;
  for (size_t i = 0; i < chunks; ++i)
    if (wf_stamps[i].load() & 0x80000000ull) wf_stamps[i].store(0);
}
// Thread-block clusters (__cluster_dims__(C, 1, 1), compiled away below; the runner reads C from the source): the C
// CTAs of a cluster run at once, CTA rank r in the runner's r-th copy of the kernel's library (its own shared memory,
// mbarrier table and hazard state). The runner gives each copy, before each cluster, its rank, the cluster size, the
// cluster's barrier (all threads of the cluster) and every copy's entries below, through which a thread performs
// operations on a peer CTA's state (hazards reported through the issuing thread's wf_hazard). Without
// __cluster_dims__ a block is a cluster of one (rank 0, size 1).
typedef void (*WfPeerArrive)(unsigned bar, void (*hz)(const char*));
typedef void (*WfPeerBulk)(unsigned dst, const void* src, unsigned bytes, unsigned bar, void (*hz)(const char*));
static unsigned wf_cl_rank = 0, wf_cl_size = 1;
static std::barrier<>* wf_cl_bar = nullptr;
static WfPeerArrive wf_cl_arrive[16];
static WfPeerBulk wf_cl_bulk[16];
thread_local std::optional<std::barrier<>::arrival_token> wf_cl_token;  // barrier.cluster.arrive not yet waited for
extern "C" void wf_set_cluster(unsigned rank, unsigned size, void* bar, void* const* arrive, void* const* bulk) {
  wf_cl_rank = rank, wf_cl_size = size, wf_cl_bar = (std::barrier<>*)bar;
  for (unsigned r = 0; r < size && r < 16; ++r) wf_cl_arrive[r] = (WfPeerArrive)arrive[r], wf_cl_bulk[r] = (WfPeerBulk)bulk[r];
  std::lock_guard<std::mutex> lock(wf_mb_mutex);
  wf_cta_returned = false;
}
// What a peer CTA's thread does to this CTA: an mbarrier arrive (release at cluster scope: the issuer's own stores
// need no stamp here, the async proxy of this CTA reads only this CTA's shared memory), a bulk copy landing here.
extern "C" void wf_peer_mbar_arrive(unsigned bar, void (*hz)(const char*)) { wf_mbar_arrive_in(bar, 0, false, hz); }
extern "C" void wf_peer_bulk_g2s(unsigned dst, const void* src, unsigned bytes, unsigned bar, void (*hz)(const char*)) {
  wf_bulk_g2s_in(dst, src, bytes, bar, true, hz);
}
// %cluster_ctarank, %cluster_nctarank.
inline unsigned wf_cluster_rank() { return wf_cl_rank; }
inline unsigned wf_cluster_size() { return wf_cl_size; }
// barrier.cluster.arrive.release / barrier.cluster.wait.acquire: the wait returns once every thread of the cluster
// that has not returned arrived (a returned thread drops out of the barrier, as the PTX ISA's "non-exited threads").
inline void wf_cluster_arrive() {
  if (!wf_cl_bar) return wf_hazard("barrier.cluster.arrive without a cluster set up by the runner");
  if (wf_cl_token) return wf_hazard("barrier.cluster.arrive twice without a barrier.cluster.wait between");
  wf_cl_token.emplace(wf_cl_bar->arrive());
}
inline void wf_cluster_wait() {
  if (!wf_cl_token) return wf_hazard("barrier.cluster.wait without a barrier.cluster.arrive before it");
  wf_cl_bar->wait(std::move(*wf_cl_token));
  wf_cl_token.reset();
}
inline void wf_cluster_sync() { wf_cluster_arrive(), wf_cluster_wait(); }
// mbarrier.arrive.release.cluster.shared::cluster on the mbarrier at window address `bar` of CTA `rank` (this CTA's
// own: a local arrive, which releases the thread's stores as wf_mbar_arrive does).
inline void wf_mbar_arrive_remote(unsigned bar, unsigned rank) {
  if (rank >= wf_cl_size) return wf_hazard("remote mbarrier arrive on a CTA rank outside the cluster");
  if (rank == wf_cl_rank) return wf_mbar_arrive(bar);
  wf_cl_arrive[rank](bar, wf_hazard);
}
// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster: the same `bytes` from `src`
// to window address `dst` of every CTA whose rank's bit is set in `mask`, each completing on the mbarrier at `bar` of
// that CTA (each CTA's copy checked, poisoned, stamped and completed as wf_bulk_g2s's, in that CTA's state).
inline void wf_bulk_g2s_multicast(unsigned dst, const void* src, unsigned bytes, unsigned bar, unsigned mask) {
  if (wf_cl_size < 32 && mask >> wf_cl_size) wf_hazard("multicast mask names a CTA rank outside the cluster");
  for (unsigned r = 0; r < wf_cl_size && r < 32; ++r) {
    if (!(mask >> r & 1)) continue;
    if (r == wf_cl_rank) wf_bulk_g2s(dst, src, bytes, bar);
    else wf_cl_bulk[r](dst, src, bytes, bar, wf_hazard);
  }
}
// The runner calls this when a thread's kernel returns: asynchronous work still pending is a hazard.
extern "C" void wf_thread_exit() {
  if (!wf_wg_open.empty() || !wf_wg_groups.empty()) wf_hazard("kernel returned with wgmma operations not waited for");
  bool copies = !wf_cp_open.empty();  // committed empty groups are harmless
  for (const auto& g : wf_cp_groups) copies |= !g.empty();
  if (copies) wf_hazard("kernel returned with cp.async copies not waited for");
  if (!wf_bs_open.empty() || !wf_bs_groups.empty()) wf_hazard("kernel returned with bulk stores not waited for");
  wf_async_thread_exit();
  // The runner reuses its threads for the next block: none of this block's per-thread state carries over.
  wf_cp_open.clear(), wf_cp_groups.clear(), wf_landed_unfenced = false;
  wf_wg_open.clear(), wf_wg_groups.clear(), wf_wg_fenced = false;
  wf_unreleased.clear(), wf_acquired.clear(), wf_waiting = false;
  wf_unfenced.clear(), wf_bs_open.clear(), wf_bs_groups.clear();
  // The thread leaves the cluster's barrier (after the phase it arrived at, if it did not wait for it).
  if (wf_cl_token) wf_cl_bar->wait(std::move(*wf_cl_token)), wf_cl_token.reset();
  if (wf_cl_bar) wf_cl_bar->arrive_and_drop();
}
inline void __sincosf(float x, float* s, float* c) {
  const float r = (float)((double)x * (double)0.15915494f);
  unsigned h; std::memcpy(&h, &x, 4); h *= 2654435761u;
  const double e1 = ((h >> 8) / 16777216.0 - 0.5) * 3.5e-7, e2 = (((h * 7u) >> 8) / 16777216.0 - 0.5) * 3.5e-7;
  *s = (float)(std::sin(2 * M_PI * r) + e1); *c = (float)(std::cos(2 * M_PI * r) + e2);
}
// sincospif: sin and cos of pi x, each the f32 nearest to the double value (CUDA: within 1 ulp).
inline void sincospif(float x, float* s, float* c) { *s = (float)std::sin(M_PI * (double)x); *c = (float)std::cos(M_PI * (double)x); }
using std::isfinite;
using std::isinf;
using std::isnan;
using std::min;
using std::max;
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float atomicAdd(float* p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
#define __global__
#define __device__
#define __grid_constant__
// A tensor map parameter: a pointer to the runner's CPU form (wf_tma_load), one 64-bit argument slot.
#define WF_CPU_TENSOR_MAP
struct wf_tensor_map { const unsigned long long* cpu; };
#define __forceinline__ inline
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#define __restrict__ __restrict
#define __constant__ static const
)";
}

// The definition of the device function named `name` (a line starting with "static" or "template" whose first
// parenthesis follows `name`), on one line or ending at the next line that is "}", replaced by `with` (a whole
// definition).
inline std::string replaceFunction(std::string& src, const std::string& name, const std::string& with) {
  for (std::size_t lineStart = 0; lineStart < src.size();) {
    const std::size_t lineEnd = std::min(src.find('\n', lineStart), src.size());
    const std::string line = src.substr(lineStart, lineEnd - lineStart);
    const std::size_t paren = line.find('(');
    if ((line.rfind("static ", 0) == 0 || line.rfind("template ", 0) == 0) && paren != std::string::npos &&
        paren > name.size() && line.compare(paren - name.size(), name.size(), name) == 0 &&
        line[paren - name.size() - 1] == ' ') {
      const std::size_t end = line.back() == '}' ? lineEnd : src.find("\n}\n", lineStart) + 2;
      std::string original = src.substr(lineStart, end - lineStart);
      src.replace(lineStart, end - lineStart, with);
      return original;
    }
    lineStart = lineEnd + 1;
  }
  return "";
}

// What the shim's wf_wgmma assumes of a replaced wgmma helper, read from its PTX: m64nN with N = 2 x the accumulator
// array's length, s32 += s8 x s8 (k32) into int or f32 += f16 x f16 (k16) into float, no transposes, scale-d from the
// constant 1 (accumulate). An empty string where it holds, else what differs.
inline std::string wgmmaHelperMismatch(const std::string& def) {
  const auto arr = def.find("(&d)["), ins = def.find("wgmma.mma_async.sync.aligned.m64n");
  if (arr == std::string::npos || ins == std::string::npos)
    return "no accumulator array or no wgmma.mma_async in: " + def.substr(0, 200);
  const int regs = std::atoi(def.c_str() + arr + 5), n = std::atoi(def.c_str() + ins + 33);
  if (n != 2 * regs) return "m64n" + std::to_string(n) + " with " + std::to_string(regs) + " accumulators";
  const bool isFloat = def.find("float (&d)") != std::string::npos;
  const std::string shape = isFloat ? "k16.f32.f16.f16" : "k32.s32.s8.s8";
  if (def.find("m64n" + std::to_string(n) + shape) == std::string::npos)
    return "expected ." + shape + " for " + (isFloat ? "float" : "int") + " accumulators";
  if (isFloat && def.find("p, 1, 1, 0, 0") == std::string::npos && def.find("p, 1, 1, 0;") == std::string::npos &&
      def.find("p, 1, 1;") == std::string::npos)
    return "f16 scale / transpose immediates other than 1, 1, 0";
  if (def.find("\"r\"(1)") == std::string::npos) return "scale-d not from the constant 1";
  return "";
}

// The cluster size of kernel `name` in `source`: C of the `__cluster_dims__(C[, 1[, 1]])` in its declaration (the text
// from the end of the previous declaration or body to the kernel's `{`; comments skipped), 1 without one. An empty
// `why` where it is one the runner emulates (C a literal 1..16, the other dimensions 1), else what is not.
inline int clusterDimsOf(const std::string& source, const std::string& name, std::string& why) {
  why.clear();
  const std::string key = "__cluster_dims__(";
  for (std::size_t at = 0; (at = source.find(key, at)) != std::string::npos; at += key.size()) {
    const std::size_t lineStart = at == 0 ? 0 : source.rfind('\n', at - 1) + 1;  // npos + 1 == 0
    if (source.substr(lineStart, at - lineStart).find("//") != std::string::npos) continue;
    const std::size_t open = at == 0 ? std::string::npos : source.rfind("/*", at - 1);
    if (open != std::string::npos && source.find("*/", open) > at) continue;
    // The declaration the attribute is part of: from the previous ';' or '}' to the next '{'.
    const std::size_t prev = at == 0 ? std::string::npos : source.find_last_of(";}", at - 1);
    const std::size_t from = prev == std::string::npos ? 0 : prev + 1, to = source.find('{', at);
    const std::string decl = source.substr(from, to == std::string::npos ? std::string::npos : to - from);
    bool named = false;
    for (std::size_t n = 0; !named && (n = decl.find(name, n)) != std::string::npos; n += name.size()) {
      const bool startsWord = n == 0 || !(std::isalnum(static_cast<unsigned char>(decl[n - 1])) || decl[n - 1] == '_');
      std::size_t after = n + name.size();
      while (after < decl.size() && std::isspace(static_cast<unsigned char>(decl[after]))) ++after;
      named = startsWord && after < decl.size() && decl[after] == '(';
    }
    if (!named) continue;
    int dims[3] = {1, 1, 1};
    const char* p = source.c_str() + at + key.size();
    for (int d = 0; d < 3; ++d) {
      while (std::isspace(static_cast<unsigned char>(*p))) ++p;
      char* end = nullptr;
      const long v = std::strtol(p, &end, 10);
      if (end == p) {
        why = "__cluster_dims__ of " + name + " not of integer literals";
        return 1;
      }
      dims[d] = static_cast<int>(v), p = end;
      while (std::isspace(static_cast<unsigned char>(*p))) ++p;
      if (*p == ')') break;
      if (*p != ',' || d == 2) {
        why = "__cluster_dims__ of " + name + " not of integer literals";
        return 1;
      }
      ++p;
    }
    if (dims[1] != 1 || dims[2] != 1 || dims[0] < 1 || dims[0] > 16)
      why = "__cluster_dims__(" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " +
            std::to_string(dims[2]) + ") of " + name + ": the runner emulates clusters of 1..16 CTAs along x";
    return dims[0];
  }
  return 1;
}

// Compiles `source` (after the caller's replacements) with the host compiler and runs kernel `k` of a plan over its
// grid, its arguments bound to `mem` (buffers by name) and `params` (the plan's parameters) as the plan says. False
// (with a test failure) where the host compiler or the loader refuse it. A kernel declared with
// `__cluster_dims__(C, 1, 1)` runs cluster by cluster (blocks C c .. C c + C - 1 at once, CTA rank r in the r-th of C
// copies of the compiled library: each its own shared memory, mbarriers and hazard state; the grid must be a multiple
// of C); without it, block by block (clusters of one).
inline bool runKernelOnCpu(const std::string& source, const PlanKernel& k,
                           std::map<std::string, std::vector<unsigned char>>& mem, long long batch,
                           const std::string& dir, const std::map<std::string, long long>& params = {}) {
  using u64 = unsigned long long;
  typedef void (*KernelFn)(u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64, u64);
  typedef void (*SetFn)(void*, void*, unsigned, unsigned, unsigned, unsigned);
  typedef void (*SetClusterFn)(unsigned, unsigned, void*, void* const*, void* const*);
  typedef void (*ExitFn)();
  typedef long long (*HazardFn)(const char**);
  typedef long long (*HazardAtFn)();
  for (const char* key : {"asm(", "asm volatile("})
    if (const auto at = source.find(key); at != std::string::npos) {
      const auto from = source.rfind('\n', at) + 1;
      ADD_FAILURE() << k.name << ": inline PTX the CPU shim does not emulate: "
                    << source.substr(from, source.find('\n', at) - from);
      return false;
    }
  std::string why;
  const int C = clusterDimsOf(source, k.name, why);
  if (!why.empty()) {
    ADD_FAILURE() << why;
    return false;
  }
  const long long blocks = k.grid.blocks(batch, 1LL << 30);
  if (blocks % C != 0) {
    ADD_FAILURE() << k.name << ": a grid of " << blocks << " blocks is not a whole number of clusters of " << C;
    return false;
  }
  std::filesystem::create_directories(dir);
  // A new library name each run: the loader may keep an earlier one of the same name (thread_local destructors pin it).
  static int runs = 0;
  const std::string src = dir + "/" + k.name + ".cpp", so = dir + "/" + k.name + "_" + std::to_string(++runs) + ".so";
  // Dynamic shared memory (`extern __shared__ T name[];`): a static array of the plan's bytes (elements of any size).
  std::string text = source;
  for (std::size_t at; (at = text.find("extern __shared__")) != std::string::npos;) {
    const std::size_t open = text.find("[];", at);
    if (open == std::string::npos) break;
    text.replace(open, 3, "[" + std::to_string(k.sharedBytes + 16) + "];");
    text.replace(at, 17, "__shared__");
  }
  {
    std::ofstream f(src);
    f << cudaOnCpuShim() << text;
  }
  const std::string cmd = "c++ -O1 -std=c++20 -fPIC -shared -w -o '" + so + "' '" + src + "' > '" + dir +
                          "/log.txt' 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "the host compiler rejected " << k.name << ": " << readFile(dir + "/log.txt");
    return false;
  }
  // One library per CTA rank: copies of the file under other names (the loader maps a file it has loaded once; a
  // copy is another file), so that each rank has its own statics.
  struct Lib {
    void* h = nullptr;
    KernelFn fn = nullptr;
    SetFn set = nullptr;
    SetClusterFn setCluster = nullptr;
    ExitFn exitFn = nullptr;
    HazardFn hazards = nullptr;
    HazardAtFn hazardAt = nullptr;
    void *peerArrive = nullptr, *peerBulk = nullptr;
  };
  std::vector<Lib> libs(static_cast<std::size_t>(C));
  auto closeAll = [&] {
    for (Lib& l : libs)
      if (l.h) dlclose(l.h), l.h = nullptr;
  };
  for (int r = 0; r < C; ++r) {
    std::string path = so;
    if (r > 0) {
      path = so.substr(0, so.size() - 3) + "_rank" + std::to_string(r) + ".so";
      std::error_code ec;
      std::filesystem::copy_file(so, path, std::filesystem::copy_options::overwrite_existing, ec);
      if (ec) {
        ADD_FAILURE() << "copying " << so << " to " << path << ": " << ec.message();
        closeAll();
        return false;
      }
    }
    Lib& l = libs[static_cast<std::size_t>(r)];
    l.h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l.h) {
      ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
      closeAll();
      return false;
    }
    l.fn = reinterpret_cast<KernelFn>(dlsym(l.h, k.name.c_str()));
    l.set = reinterpret_cast<SetFn>(dlsym(l.h, "wf_set"));
    l.setCluster = reinterpret_cast<SetClusterFn>(dlsym(l.h, "wf_set_cluster"));
    l.exitFn = reinterpret_cast<ExitFn>(dlsym(l.h, "wf_thread_exit"));
    l.hazards = reinterpret_cast<HazardFn>(dlsym(l.h, "wf_hazard_count"));
    l.hazardAt = reinterpret_cast<HazardAtFn>(dlsym(l.h, "wf_hazard_first_at"));
    l.peerArrive = dlsym(l.h, "wf_peer_mbar_arrive");
    l.peerBulk = dlsym(l.h, "wf_peer_bulk_g2s");
    if (!l.fn || !l.set || !l.setCluster || !l.exitFn || !l.hazards || !l.hazardAt || !l.peerArrive || !l.peerBulk ||
        k.args.size() > 16) {
      ADD_FAILURE() << "no kernel " << k.name << " in " << path;
      closeAll();
      return false;
    }
  }
  std::vector<void*> peerArrive, peerBulk;
  for (const Lib& l : libs) peerArrive.push_back(l.peerArrive), peerBulk.push_back(l.peerBulk);
  // Pointers, int and long long arguments all travel in 64-bit integer slots (x86-64 and AArch64 ABIs), a tensor map
  // as a pointer to its CPU form.
  u64 a[16] = {};
  std::deque<std::vector<u64>> maps;
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    const PlanArg& g = k.args[i];
    if (g.kind == PlanArg::Kind::Buffer) a[i] = reinterpret_cast<u64>(mem.at(g.name).data());
    else if (g.kind == PlanArg::Kind::Literal) a[i] = static_cast<u64>(g.value);
    else if (g.kind == PlanArg::Kind::BatchTimes) a[i] = static_cast<u64>(batch * g.value);
    else if (g.kind == PlanArg::Kind::Param) a[i] = static_cast<u64>(params.at(g.name));
    else if (g.kind == PlanArg::Kind::TensorMap) {  // the CPU form wf_tma_load reads
      const PlanTensorMap& m = g.map;
      std::vector<u64>& f = maps.emplace_back(17, 0);
      f[0] = reinterpret_cast<u64>(mem.at(g.name).data());
      f[1] = m.dims.size();
      for (std::size_t d = 0; d < m.dims.size() && d < 5; ++d) {
        f[2 + d] = static_cast<u64>(m.dims[d] * (static_cast<int>(d) == m.batchDim ? batch : 1));
        f[11 + d] = static_cast<u64>(m.box[d]);
        if (d) f[6 + d] = static_cast<u64>(m.strides[d - 1]);
      }
      f[16] = static_cast<u64>(m.swizzle);
      a[i] = reinterpret_cast<u64>(f.data());
    }
  }
  // One host thread per CUDA thread of a cluster, made once and reused for every cluster (creating threads costs far
  // more than running most blocks); each cluster gets fresh barriers, and the pool meets before and after each
  // cluster, so a cluster's CTAs have all returned before the next starts.
  std::barrier<> pool(C * k.blockX + 1);
  std::vector<std::unique_ptr<std::barrier<>>> bars(static_cast<std::size_t>(C));
  std::vector<std::vector<std::unique_ptr<std::barrier<>>>> warps(static_cast<std::size_t>(C));
  std::unique_ptr<std::barrier<>> clusterBar;
  long long cluster = 0;
  bool done = false;
  std::vector<std::thread> th;
  for (int i = 0; i < C * k.blockX; ++i)
    th.emplace_back([&, i] {
      const int r = i / k.blockX, t = i % k.blockX;
      const Lib& l = libs[static_cast<std::size_t>(r)];
      for (;;) {
        pool.arrive_and_wait();  // the cluster's barriers are made (or the grid is done)
        if (done) return;
        l.set(bars[static_cast<std::size_t>(r)].get(),
              warps[static_cast<std::size_t>(r)][static_cast<std::size_t>(t / 32)].get(), static_cast<unsigned>(t),
              static_cast<unsigned>(cluster * C + r), static_cast<unsigned>(blocks), static_cast<unsigned>(k.blockX));
        l.fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
        l.exitFn();
        pool.arrive_and_wait();  // every thread of the cluster returned
      }
    });
  for (cluster = 0; cluster < blocks / C; ++cluster) {
    for (int r = 0; r < C; ++r) {
      bars[static_cast<std::size_t>(r)] = std::make_unique<std::barrier<>>(k.blockX);
      auto& w = warps[static_cast<std::size_t>(r)];
      w.clear();
      for (int x = 0; x * 32 < k.blockX; ++x)
        w.push_back(std::make_unique<std::barrier<>>(std::min(32, k.blockX - 32 * x)));
    }
    clusterBar = std::make_unique<std::barrier<>>(C * k.blockX);
    for (int r = 0; r < C; ++r)
      libs[static_cast<std::size_t>(r)].setCluster(static_cast<unsigned>(r), static_cast<unsigned>(C), clusterBar.get(),
                                                   peerArrive.data(), peerBulk.data());
    pool.arrive_and_wait();
    pool.arrive_and_wait();
  }
  done = true;
  pool.arrive_and_wait();
  for (auto& x : th) x.join();
  // Hazards of every rank's library: counted together, the earliest first one named.
  long long count = 0, firstAt = 0;
  std::string firstText;
  for (const Lib& l : libs) {
    const char* first = nullptr;
    const long long n = l.hazards(&first);
    if (n == 0) continue;
    const long long at = l.hazardAt();
    if (count == 0 || at < firstAt) firstAt = at, firstText = first ? first : "";
    count += n;
  }
  closeAll();
  if (count) {
    ADD_FAILURE() << k.name << ": " << count << " hazard(s) in the emulation; the first: " << firstText;
    return false;
  }
  return true;
}

// Generated CUDA's f16 storage for the host: `#include <cuda_fp16.h>` replaced by __half / __half2 over the host
// compiler's _Float16 (IEEE binary16, round to nearest even, as cuda_fp16.h's _rn conversions).
inline std::string withHostHalf(std::string src) {
  const std::string inc = "#include <cuda_fp16.h>";
  if (const auto at = src.find(inc); at != std::string::npos)
    src.replace(at, inc.size(),
                "struct __half { _Float16 v; };\n"
                "struct __half2 { _Float16 x, y; };\n"
                "inline float __half2float(__half h) { return (float)h.v; }\n"
                "inline __half __float2half_rn(float f) { return __half{(_Float16)f}; }\n"
                "inline float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }\n"
                "inline __half2 __floats2half2_rn(float a, float b) { return __half2{(_Float16)a, (_Float16)b}; }");
  return src;
}

// A family's plan run on the CPU from its generated source: inputs random (seed), outputs poisoned (0xff), each
// kernel's inline-PTX helpers replaced (`shim`: function name -> the definition calling the shim's emulation), the
// kernels run in order, the outputs checked by the family against its reference (printed with `tag`; test failures
// where a kernel does not run or the check fails; exact checks must find no error). `alter` may change the inputs
// before the run; the reference still reads them as drawn. `outputs`, where given, receives the output arrays.
inline Check runPlanOnCpu(const FamilySpec& fs, const LaunchPlan& plan, long long batch, std::uint64_t seed,
                          const std::string& tag, const std::string& label,
                          const std::vector<std::pair<std::string, std::string>>& shim,
                          const std::map<std::string, long long>& params = {},
                          const std::function<void(TestData&)>& alter = {},
                          std::map<std::string, std::vector<unsigned char>>* outputs = nullptr) {
  TestData d = fs.randomInputs(batch, seed);
  if (alter) alter(d);
  std::map<std::string, std::vector<unsigned char>> mem;
  for (const auto& b : plan.buffers) {
    if (!b.aliasOf.empty()) continue;
    if (b.role == BufferRole::Input) mem[b.name] = d.arrays.at(b.name);
    else if (b.role == BufferRole::Table) mem[b.name] = b.contents;
    else
      mem[b.name].assign(static_cast<std::size_t>(b.elements(batch, b.perBatchElems) * b.elementBytes),
                         b.role == BufferRole::Output ? 0xff : 0);
  }
  for (const auto& k : plan.kernels) {
    std::string src = plan.sources[k.source].text;
    for (const auto& [name, with] : shim) {
      const std::string original = replaceFunction(src, name, with);
      if (with.find("wf_wgmma(d,") != std::string::npos && !original.empty())
        if (const std::string why = wgmmaHelperMismatch(original); !why.empty()) {
          ADD_FAILURE() << label << ": " << k.name << "'s " << name << " is not what the shim emulates: " << why;
          return {};
        }
    }
    // An in-place plan's output is its input's memory: arguments name the buffer that holds it.
    PlanKernel bound = k;
    for (auto& arg : bound.args)
      if (const PlanBuffer* b = arg.kind == PlanArg::Kind::Buffer ? plan.buffer(arg.name) : nullptr;
          b && !b->aliasOf.empty())
        arg.name = b->aliasOf;
    // One folder per process: ctest runs tests in parallel processes, which may share spec names.
    if (!runKernelOnCpu(src, bound, mem, batch,
                        ::testing::TempDir() + "/" + tag + "_" + fs.name() + "_" + std::to_string(::getpid()),
                        params)) {
      ADD_FAILURE() << label << ": kernel " << k.name << " did not run";
      return {};
    }
  }
  std::map<std::string, std::vector<unsigned char>> out;
  for (const auto& b : plan.buffers)
    if (b.role == BufferRole::Output) out[b.name] = mem.at(b.aliasOf.empty() ? b.name : b.aliasOf);
  const Check ck = fs.check(d, out, batch);
  if (outputs) *outputs = out;
  std::printf("[%s] %s (seed %llu): %s\n", tag.c_str(), label.c_str(), static_cast<unsigned long long>(seed),
              ck.detail.c_str());
  EXPECT_TRUE(ck.ok()) << label << ": " << ck.detail;
  if (ck.exact) EXPECT_EQ(ck.error, 0) << label;
  return ck;
}

// Each mutation {label, text, replacement} (every occurrence replaced in the plan's first source) must make the CPU
// run of the plan fail (a hazard, a kernel that does not run, or a wrong output): a test of the emulation itself.
inline void expectMutationsCaught(const FamilySpec& fs, const LaunchPlan& plan,
                                  const std::vector<std::array<std::string, 3>>& mutations, std::uint64_t seed,
                                  const std::string& tag, const std::vector<std::pair<std::string, std::string>>& shim,
                                  const std::map<std::string, long long>& params = {}, std::size_t source = 0) {
  for (const auto& [label, from, to] : mutations) {
    LaunchPlan m = plan;
    std::string& text = m.sources.at(source).text;
    int replaced = 0;
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size(), ++replaced)
      text.replace(at, from.size(), to);
    ASSERT_GT(replaced, 0) << label << ": the kernel no longer contains `" << from << "` (update the mutation)";
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter intercept(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      runPlanOnCpu(fs, m, 2, seed, tag, "mutated: " + label, shim, params);
    }
    std::string first = failures.size() ? failures.GetTestPartResult(0).message() : "";
    std::replace(first.begin(), first.end(), '\n', ' ');
    std::printf("[%s] mutation '%s': %d failure(s)%s%.200s\n", tag.c_str(), label.c_str(), failures.size(),
                failures.size() ? ", the first: " : "", first.c_str());
    // Caught means a hazard or a wrong output, not a kernel the host compiler or loader refused.
    bool caught = false;
    for (int f = 0; f < failures.size(); ++f) {
      const std::string msg = failures.GetTestPartResult(f).message();
      caught |= msg.find("hazard(s) in the emulation") != std::string::npos || msg.find("ck.ok()") != std::string::npos;
    }
    EXPECT_TRUE(caught) << "mutation not caught (no hazard, no wrong output): " << label;
  }
}

}  // namespace warpforge::test
