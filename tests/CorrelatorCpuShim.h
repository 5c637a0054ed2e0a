#pragma once
// The correlator's CPU runs (tests/CudaOnCpu.h): the shim replacing its inline-PTX helpers and the run against the
// exact reference, shared by the correlator's CPU test files.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "CudaOnCpu.h"

namespace warpforge {

// The correlator's inline-PTX helpers, each replaced by the CPU shim's function (tests/CudaOnCpu.h).
inline std::vector<std::pair<std::string, std::string>> correlatorShimEntries();

inline const std::vector<std::pair<std::string, std::string>>& correlatorShim() {
  static const std::vector<std::pair<std::string, std::string>> shim = correlatorShimEntries();
  return shim;
}

inline std::vector<std::pair<std::string, std::string>> correlatorShimEntries() {
  std::vector<std::pair<std::string, std::string>> shim = {
      {"corr_ldsm4",
       "static inline void corr_ldsm4(unsigned a, wf_u32& r0, wf_u32& r1, wf_u32& r2, wf_u32& r3) { wf_ldsm4(a, r0, "
       "r1, r2, r3); }"},
      {"corr_mma_s8",
       "static inline void corr_mma_s8(int& d0, int& d1, int& d2, int& d3, wf_u32 a0, wf_u32 a1, wf_u32 a2, wf_u32 a3, "
       "wf_u32 b0, "
       "wf_u32 b1) { wf_mma_s8(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1); }"},
      {"corr_mma_f16",
       "static inline void corr_mma_f16(float& d0, float& d1, float& d2, float& d3, wf_u32 a0, wf_u32 a1, wf_u32 a2, "
       "wf_u32 a3, "
       "wf_u32 b0, wf_u32 b1) { wf_mma_f16(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1); }"},
      {"corr_wgmma_fence", "static inline void corr_wgmma_fence() { wf_wgmma_fence(); }"},
      {"corr_wgmma_commit", "static inline void corr_wgmma_commit() { wf_wgmma_commit(); }"},
      {"corr_wgmma_wait0", "static inline void corr_wgmma_wait0() { wf_wgmma_wait(0); }"},
      // The proxy fence: data landed by cp.async must pass one before the thread's next wgmma (the shim checks).
      {"corr_fence_async_smem", "static inline void corr_fence_async_smem() { wf_proxy_fence(); }"},
      {"corr_cp_async16",
       "static inline void corr_cp_async16(void* dst, const void* src, bool valid) { wf_cp_async(dst, src, 16, valid); "
       "}"},
      {"corr_cp_async8",
       "static inline void corr_cp_async8(void* dst, const void* src, bool valid) { wf_cp_async(dst, src, 8, valid); "
       "}"},
      {"corr_cp_commit", "static inline void corr_cp_commit() { wf_cp_commit(); }"},
      {"corr_cp_wait", "template <int N> static inline void corr_cp_wait() { wf_cp_wait(N); }"},
      {"corr_wgmma",
       "template <class T, int R> static inline void corr_wgmma(T (&d)[R], unsigned long long da, unsigned long long "
       "db) { "
       "wf_wgmma_acquired(da, 64, db, 2 * R); wf_wgmma(d, da, db); }"},
      {"corr_wgmma_half",
       "template <class T, int R> static inline void corr_wgmma_half(T (&d)[R], unsigned long long da, unsigned long "
       "long db) { "
       "wf_wgmma_acquired(da, 64, db, 2 * R); wf_wgmma(d, da, db); }"},
      {"corr_wgmma_wait", "template <int N> static inline void corr_wgmma_wait() { wf_wgmma_wait(N); }"},
      // The pipeline with the operands as stored: cp.async by window address, wgmma with A from registers.
      {"corr_cp16",
       "static inline void corr_cp16(unsigned dst, const void* src, unsigned bytes) { wf_cp_async_zfill(dst, src, 16, "
       "(int)bytes); }"},
      {"corr_wgmma_rs",
       "template <class T, int R> static inline void corr_wgmma_rs(T (&d)[R], wf_u32 a0, wf_u32 a1, wf_u32 a2, wf_u32 "
       "a3, unsigned long long db) { wf_wgmma(d, a0, a1, a2, a3, db); }"},
      {"corr_wgmma_rs_half",
       "template <class T, int R> static inline void corr_wgmma_rs_half(T (&d)[R], wf_u32 a0, wf_u32 a1, wf_u32 a2, "
       "wf_u32 a3, unsigned long long db) { wf_wgmma(d, a0, a1, a2, a3, db); }"},
      // templates/warpforge_async.cuh
      {"wfa_mbar_init", "static inline void wfa_mbar_init(unsigned bar, unsigned count) { wf_mbar_init(bar, count); }"},
      {"wfa_fence_mbar_init", "static inline void wfa_fence_mbar_init() {}"},
      {"wfa_mbar_arrive", "static inline void wfa_mbar_arrive(unsigned bar) { wf_mbar_arrive(bar); }"},
      {"wfa_mbar_arrive_tx",
       "static inline void wfa_mbar_arrive_tx(unsigned bar, unsigned bytes) { wf_mbar_arrive_tx(bar, bytes); }"},
      {"wfa_mbar_try_wait",
       "static inline bool wfa_mbar_try_wait(unsigned bar, unsigned parity) { return wf_mbar_try_wait(bar, parity); }"},
      {"wfa_bulk_g2s",
       "static inline void wfa_bulk_g2s(unsigned dst, const void* src, unsigned bytes, unsigned bar) { "
       "wf_bulk_g2s(dst, src, bytes, bar); }"},
      {"wfa_tma_load_4d",
       "static inline void wfa_tma_load_4d(unsigned dst, const wf_tensor_map* map, int c0, int c1, int c2, int c3, "
       "unsigned bar) { wf_tma_load_4d(dst, map->cpu, c0, c1, c2, c3, bar); }"},
      {"wfa_cluster_rank", "static inline unsigned wfa_cluster_rank() { return wf_cluster_rank(); }"},
      {"wfa_cluster_sync", "static inline void wfa_cluster_sync() { wf_cluster_sync(); }"},
      {"wfa_mbar_arrive_remote",
       "static inline void wfa_mbar_arrive_remote(unsigned bar, unsigned rank) { wf_mbar_arrive_remote(bar, rank); }"},
      {"wfa_mbar_try_wait_cluster",
       "static inline bool wfa_mbar_try_wait_cluster(unsigned bar, unsigned parity) { return wf_mbar_try_wait(bar, "
       "parity); }"},
      {"wfa_bulk_g2s_multicast",
       "static inline void wfa_bulk_g2s_multicast(unsigned dst, const void* src, unsigned bytes, unsigned bar, "
       "unsigned "
       "short mask) { wf_bulk_g2s_multicast(dst, src, bytes, bar, mask); }"},
      {"wfa_setmaxnreg_inc", "template <int N> static inline void wfa_setmaxnreg_inc() { wf_setmaxnreg(N); }"},
      {"wfa_setmaxnreg_dec", "template <int N> static inline void wfa_setmaxnreg_dec() { wf_setmaxnreg(N); }"},
      {"wfa_lds128", "static inline uint4 wfa_lds128(unsigned a) { return wf_lds128(a); }"},
      {"wfa_sts128", "static inline void wfa_sts128(unsigned a, uint4 v) { wf_sts128(a, v); }"},
      {"wfa_bar_sync", "static inline void wfa_bar_sync(unsigned id, unsigned count) { wf_bar_sync(id, count); }"},
      {"wfa_bar_arrive",
       "static inline void wfa_bar_arrive(unsigned id, unsigned count) { wf_bar_arrive(id, count); }"},
      {"wfa_bulk_s2g",
       "static inline void wfa_bulk_s2g(void* dst, unsigned src, unsigned bytes) { wf_bulk_s2g(dst, src, bytes); }"},
      {"wfa_bulk_commit", "static inline void wfa_bulk_commit() { wf_bulk_commit(); }"},
      {"wfa_bulk_wait_read0", "static inline void wfa_bulk_wait_read0() { wf_bulk_wait(0); }"},
      {"wfa_bulk_wait0", "static inline void wfa_bulk_wait0() { wf_bulk_wait(0); }"}};
  // The whole-triangle block's wgmma helpers, one per piece width (m64nN, N = 2 x column inputs).
  for (int n = 16; n <= 256; n += 16)
    shim.push_back({fmt::format("corr_wgmma_n{}", n),
                    fmt::format("template <class T, int R> static inline void corr_wgmma_n{}(T (&d)[R], unsigned long "
                                "long da, unsigned long long db) {{ wf_wgmma_acquired(da, 64, db, 2 * R); wf_wgmma(d, "
                                "da, db); }}",
                                n)});
  return shim;
}

// A correlator plan on the CPU against the exact int64 reference (integers; f16 against the double reference within
// the f32-accumulation bound): every visibility, the accumulators left zero after a dump, the saturation count, the
// missing marker.
inline Check runCorrelatorPlanOnCpu(const FamilySpec& fs, const LaunchPlan& plan, long long batch, std::uint64_t seed,
                                    const std::string& label) {
  return test::runPlanOnCpu(fs, plan, batch, seed, "correlator-cpu", label, correlatorShim(), {{"dump", 1}});
}

}  // namespace warpforge
