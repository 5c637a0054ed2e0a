#include "bench/Baseline.h"
#include "bench/FirR2cBaseline.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cufftXt.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

#include <fmt/format.h>

namespace warpforge {

namespace {

class CufftRun : public BaselineRun {
 public:
  CufftRun(const BaselineRequest& r, const FftBaseline& f, const TestData& data, long long batch, std::string* why)
      : sign_(f.sign) {
    const bool f16 = f.precision == FftBaseline::Precision::F16, f64 = f.precision == FftBaseline::Precision::F64;
    const bool realIn = f.transform == FftBaseline::Transform::R2C,
               realOut = f.transform == FftBaseline::Transform::C2R;
    const int scalar = f16 ? 2 : f64 ? 8 : 4;
    long long nin = 1, nout = 1;
    for (std::size_t d = 0; d < f.lengths.size(); ++d) {
      const bool last = d + 1 == f.lengths.size();
      nin *= last && realOut ? f.lengths[d] / 2 + 1 : f.lengths[d];
      nout *= last && realIn ? f.lengths[d] / 2 + 1 : f.lengths[d];
    }
    std::vector<unsigned char> in = r.denseInput(data, batch);
    const int inElem = (realIn ? 1 : 2) * scalar, outElem = (realOut ? 1 : 2) * scalar;
    const bool layout = f.inLayout && f.outLayout;  // the family's own arrays (advanced layout), else dense
    outBytes_ = static_cast<std::size_t>(
        layout ? (f.outLayout->offset + (batch - 1) * f.outLayout->distance + f.outLayout->span) * outElem
               : nout * batch * outElem);
    const std::size_t inBytes = f.inPlace ? std::max(in.size(), outBytes_) : in.size();
    in.resize(inBytes, 0);
    in_ = std::make_unique<DeviceBuffer>(inBytes);
    if (!f.inPlace) out_ = std::make_unique<DeviceBuffer>(outBytes_);
    checkCu(cuMemcpyHtoD(in_->p, in.data(), in.size()), "cuMemcpyHtoD (baseline input)");
    inPtr_ = in_->p + (layout ? f.inLayout->offset * inElem : 0);
    outPtr_ = (f.inPlace ? in_->p : out_->p) + (layout ? f.outLayout->offset * outElem : 0);
    if (cufftCreate(&plan_) != CUFFT_SUCCESS) throw std::runtime_error("cufftCreate failed");
    created_ = true;
    std::vector<long long> dims(f.lengths.begin(), f.lengths.end());
    // cuFFT's logical sizes for c2r are the real lengths; its input embeds N/2+1 complex values.
    cudaDataType ct = f16   ? CUDA_C_16F
                      : f64 ? CUDA_C_64F
                            : CUDA_C_32F,
                 rt = f16   ? CUDA_R_16F
                      : f64 ? CUDA_R_64F
                            : CUDA_R_32F;
    size_t ws = 0;
    std::vector<long long> inEmbed, outEmbed;
    long long inStride = 1, inDist = nin, outStride = 1, outDist = nout;
    if (layout) {
      inEmbed = f.inLayout->embed;
      outEmbed = f.outLayout->embed;
      inStride = f.inLayout->stride;
      inDist = f.inLayout->distance;
      outStride = f.outLayout->stride;
      outDist = f.outLayout->distance;
    }
    cufftResult res = cufftXtMakePlanMany(plan_, static_cast<int>(dims.size()), dims.data(),
                                          layout ? inEmbed.data() : nullptr, inStride, inDist, realIn ? rt : ct,
                                          layout ? outEmbed.data() : nullptr, outStride, outDist, realOut ? rt : ct,
                                          batch, &ws, ct);
    if (res != CUFFT_SUCCESS) {
      if (why) *why = fmt::format("cuFFT cannot plan this transform (cufftResult {})", static_cast<int>(res));
      return;
    }
    planned_ = true;
    name = r.description;
    exec();
    checkCu(cuCtxSynchronize(), "cuFFT");
    std::vector<unsigned char> out(outBytes_);
    checkCu(cuMemcpyDtoH(out.data(), f.inPlace ? in_->p : out_->p, outBytes_), "cuMemcpyDtoH (baseline output)");
    if (r.error) error = r.error(out, data, batch);
  }
  ~CufftRun() override {
    if (created_) cufftDestroy(plan_);  // a handle may be any value, 0 included
  }
  bool planned() const { return planned_; }
  void exec() override {
    if (cufftXtExec(plan_, reinterpret_cast<void*>(inPtr_), reinterpret_cast<void*>(outPtr_),
                    sign_ < 0 ? CUFFT_FORWARD : CUFFT_INVERSE) != CUFFT_SUCCESS)
      throw std::runtime_error("cufftXtExec failed");
  }

 private:
  int sign_;
  cufftHandle plan_ = 0;
  bool created_ = false, planned_ = false;
  std::size_t outBytes_ = 0;
  std::unique_ptr<DeviceBuffer> in_, out_;
  CUdeviceptr inPtr_ = 0, outPtr_ = 0;  // where the arrays start (the layout's offset)
};

// HerkBaseline: per batch b < batches (times the bench batch), C[b] = S[b] S[b]^H for S n x k complex,
// the input dense [b][n][k] with k fastest. cuBLAS has no batched
// complex-int8 HERK, so it is the batched GEMM C^T = X^H X with X = S^T (k x n, column-major, the data as
// given): both triangles, twice the work HERK would do — what a user calling cuBLAS for it gets.
// ci8: CUDA_C_8I -> CUDA_C_32F; cf16: widened to complex f32 on the host (cuBLAS has no complex-f16 GEMM).
class BlasHerkRun : public BaselineRun {
 public:
  BlasHerkRun(const BaselineRequest& r, const HerkBaseline& herk, const TestData& data, long long batch) {
    batches_ = herk.batches * batch;
    n_ = herk.n;
    k_ = herk.k;
    std::vector<unsigned char> in = r.denseInput(data, batch);
    int8_ = herk.input == BaselineInput::CI8;
    if (!int8_) {  // complex f16 -> complex f32
      std::vector<unsigned char> wide(in.size() * 2);
      for (std::size_t i = 0; i < in.size() / 2; ++i) {
        std::uint16_t h;
        std::memcpy(&h, &in[2 * i], 2);
        const std::uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
        float f;
        if (e == 0) f = std::ldexp(static_cast<float>(m), -24) * (sign ? -1.f : 1.f);
        else if (e == 31) f = m ? NAN : (sign ? -INFINITY : INFINITY);
        else {
          std::uint32_t bits = sign | ((e + 112) << 23) | (m << 13);
          std::memcpy(&f, &bits, 4);
        }
        std::memcpy(&wide[4 * i], &f, 4);
      }
      in.swap(wide);
    }
    in_ = std::make_unique<DeviceBuffer>(in.size());
    out_ = std::make_unique<DeviceBuffer>(static_cast<std::size_t>(batches_ * n_ * n_ * 8));
    checkCu(cuMemcpyHtoD(in_->p, in.data(), in.size()), "cuMemcpyHtoD (herk baseline input)");
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    created_ = true;
    name = r.description + " (cublasGemmStridedBatchedEx, both triangles)";
    exec();
    checkCu(cuCtxSynchronize(), "cuBLAS");
    ok_ = true;
  }
  ~BlasHerkRun() override {
    if (created_) cublasDestroy(handle_);
  }
  bool ok() const { return ok_; }
  void exec() override {
    const float alpha[2] = {1, 0}, beta[2] = {0, 0};
    const cudaDataType in = int8_ ? CUDA_C_8I : CUDA_C_32F;
    cublasStatus_t st = cublasGemmStridedBatchedEx(
        handle_, CUBLAS_OP_C, CUBLAS_OP_N, static_cast<int>(n_), static_cast<int>(n_), static_cast<int>(k_), alpha,
        reinterpret_cast<const void*>(in_->p), in, static_cast<int>(k_), n_ * k_, reinterpret_cast<const void*>(in_->p),
        in, static_cast<int>(k_), n_ * k_, beta, reinterpret_cast<void*>(out_->p), CUDA_C_32F, static_cast<int>(n_),
        n_ * n_, static_cast<int>(batches_), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(fmt::format("cublasGemmStridedBatchedEx failed: status {}", static_cast<int>(st)));
  }

 private:
  cublasHandle_t handle_ = nullptr;
  bool created_ = false, ok_ = false, int8_ = true;
  long long batches_ = 0, n_ = 0, k_ = 0;
  std::unique_ptr<DeviceBuffer> in_, out_;
};

// f16 bits -> f32 (exact: every f16 is an f32).
float halfToFloat(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0) return std::ldexp(static_cast<float>(m), -24) * (sign ? -1.f : 1.f);
  if (e == 31) return m ? NAN : (sign ? -INFINITY : INFINITY);
  const std::uint32_t bits = sign | ((e + 112) << 23) | (m << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Handles and descriptors released by their owners, so that a constructor that throws leaks nothing.
struct BlasHandle {
  cublasHandle_t h = nullptr;
  ~BlasHandle() {
    if (h) cublasDestroy(h);
  }
};
struct LtPlan {
  cublasLtHandle_t lt = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void reset() {
    if (desc) cublasLtMatmulDescDestroy(desc);
    for (auto l : {a, b, c})
      if (l) cublasLtMatrixLayoutDestroy(l);
    desc = nullptr, a = b = c = nullptr;
  }
  ~LtPlan() {
    reset();
    if (lt) cublasLtDestroy(lt);
  }
};

void checkBlas(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("{} failed: {} ({})", what, cublasGetStatusName(st), static_cast<int>(st)));
}

using Lib = GemmBaseline::Library;

// The library's name in messages.
std::string gemmName(Lib l) {
  switch (l) {
    case Lib::Cgemm: return "cgemm";
    case Lib::CgemmI8: return "cgemm_i8";
    case Lib::CgemmLtF16: return "cgemm_lt_f16";
  }
  return "gemm";
}

// GemmBaseline: complex GEMMs C[g] = A[g] B[g], g < gemms x batch (GEMMs per batch entry times the bench batch);
// C[g] is M x N column-major (element (m, n) at n M + m) in complex f32
// (cgemm_lt_f16: complex f16 where cuBLASLt offers no f32 output for planar f16; widened for the error).
// The dense input (BaselineRequest::denseInput) holds the A set [g][m][k] (k fastest: column-major K x M, used
// transposed) then the B set [g][n][k] (column-major K x N): ci8 interleaved (re, im) int8 pairs; cf16 planar:
// the real parts of a whole set, then its imaginary parts.
//   cgemm        cublasCgemmStridedBatched on complex f32 copies (what a user without low-bit GEMMs calls)
//   cgemm_i8     cublasGemmStridedBatchedEx CUDA_C_8I x CUDA_C_8I -> CUDA_C_32F, CUBLAS_COMPUTE_32F (ci8 only)
//   cgemm_lt_f16 cublasLtMatmul planar complex CUDA_C_16F inputs, CUBLAS_COMPUTE_32F (cf16 only)
class BlasGemmRun : public BaselineRun {
 public:
  BlasGemmRun(const BaselineRequest& r, const GemmBaseline& gemm, const TestData& data, long long batch,
              std::string* why)
      : kind_(gemm.library) {
    g_ = gemm.gemms * batch, m_ = gemm.m, n_ = gemm.n, k_ = gemm.k;
    const bool i8 = gemm.input == BaselineInput::CI8;
    const std::string kind = gemmName(kind_);
    if ((kind_ == Lib::CgemmI8 && !i8) || (kind_ == Lib::CgemmLtF16 && i8))
      throw std::invalid_argument(fmt::format("{} baseline: no such GEMM for {} inputs", kind, i8 ? "ci8" : "cf16"));
    if (g_ > 0x7fffffff || m_ > 0x7fffffff || n_ > 0x7fffffff || k_ > 0x7fffffff)
      throw std::invalid_argument(kind + " baseline: sizes beyond int");
    const std::vector<unsigned char> in = r.denseInput(data, batch);
    const long long aValues = g_ * m_ * k_, bValues = g_ * n_ * k_;
    if (static_cast<long long>(in.size()) != (aValues + bValues) * (i8 ? 2 : 4))
      throw std::logic_error(kind + " baseline: dense input of the wrong size");
    if (kind_ == Lib::Cgemm) {
      // Complex f32 copies, interleaved.
      std::vector<float> f(static_cast<std::size_t>(2 * (aValues + bValues)));
      if (i8) {
        for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(static_cast<signed char>(in[i]));
      } else {
        for (int set = 0; set < 2; ++set) {
          const long long values = set ? bValues : aValues, at = set ? aValues : 0;  // complex values before this set
          for (long long v = 0; v < values; ++v)
            for (int part = 0; part < 2; ++part) {
              std::uint16_t h;
              std::memcpy(&h, &in[static_cast<std::size_t>(2 * (2 * at + part * values + v))], 2);
              f[static_cast<std::size_t>(2 * (at + v) + part)] = halfToFloat(h);
            }
        }
      }
      upload(f.data(), static_cast<std::size_t>(aValues * 8), static_cast<std::size_t>(bValues * 8));
    } else {
      const std::size_t eb = i8 ? 2 : 4;
      if (i8) {
        upload(in.data(), static_cast<std::size_t>(aValues) * eb, static_cast<std::size_t>(bValues) * eb);
      } else {  // each set's imaginary plane at a 256-byte aligned offset after its real plane
        std::vector<unsigned char> padded;
        const std::size_t aPlane = planeBytes(aValues, 2), bPlane = planeBytes(bValues, 2);
        padded.assign(2 * (aPlane + bPlane), 0);
        const unsigned char* src = in.data();
        for (auto [values, plane, at] :
             {std::tuple{aValues, aPlane, std::size_t{0}}, std::tuple{bValues, bPlane, 2 * aPlane}})
          for (int part = 0; part < 2; ++part, src += values * 2)
            std::memcpy(&padded[at + part * plane], src, static_cast<std::size_t>(values * 2));
        upload(padded.data(), 2 * aPlane, 2 * bPlane);
        ltHostA_.assign(padded.begin(), padded.begin() + static_cast<std::ptrdiff_t>(2 * aPlane));
      }
    }
    if (kind_ == Lib::CgemmLtF16) {
      if (!setUpLt(why)) return;
    } else {
      checkBlas(cublasCreate(&blas_.h), "cublasCreate");
      outBytes_ = static_cast<std::size_t>(g_ * m_ * n_ * 8);
    }
    c_ = std::make_unique<DeviceBuffer>(outBytes_);
    exec();
    checkCu(cuCtxSynchronize(), "cuBLAS");
    std::vector<unsigned char> out(outBytes_);
    checkCu(cuMemcpyDtoH(out.data(), c_->p, outBytes_), "cuMemcpyDtoH (baseline output)");
    if (kind_ == Lib::CgemmLtF16) {  // planar complex f16 or f32 -> interleaved complex f32
      const long long values = g_ * m_ * n_;
      const int eb = ltHalfOut_ ? 2 : 4;
      const std::size_t plane = planeBytes(values, eb);
      std::vector<unsigned char> wide(static_cast<std::size_t>(values * 8));
      for (long long v = 0; v < values; ++v)
        for (int part = 0; part < 2; ++part) {
          float f;
          if (ltHalfOut_) {
            std::uint16_t h;
            std::memcpy(&h, &out[part * plane + static_cast<std::size_t>(2 * v)], 2);
            f = halfToFloat(h);
          } else {
            std::memcpy(&f, &out[part * plane + static_cast<std::size_t>(4 * v)], 4);
          }
          std::memcpy(&wide[static_cast<std::size_t>(8 * v + 4 * part)], &f, 4);
        }
      out.swap(wide);
    }
    if (r.error) error = r.error(out, data, batch);
    name = r.description + (kind_ == Lib::Cgemm ? " (cublasCgemmStridedBatched, complex f32)"
                            : kind_ == Lib::CgemmI8
                                ? " (cublasGemmStridedBatchedEx C_8I -> C_32F)"
                                : fmt::format(" (cublasLtMatmul planar C_16F -> C_{}F{})", ltHalfOut_ ? 16 : 32,
                                              ltTransposedA_ ? ", weights transposed on the host for op N" : ""));
    ok_ = true;
  }
  bool ok() const { return ok_; }

  void exec() override {
    const float one[2] = {1, 0}, zero[2] = {0, 0};
    const int m = static_cast<int>(m_), n = static_cast<int>(n_), k = static_cast<int>(k_), g = static_cast<int>(g_);
    const void* A = reinterpret_cast<const void*>(a_->p);
    const void* B = reinterpret_cast<const void*>(b_->p);
    void* C = reinterpret_cast<void*>(c_->p);
    if (kind_ == Lib::Cgemm) {
      const cuComplex alpha{1, 0}, beta{0, 0};
      checkBlas(cublasCgemmStridedBatched(blas_.h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha,
                                          static_cast<const cuComplex*>(A), k, m_ * k_,
                                          static_cast<const cuComplex*>(B), k, n_ * k_, &beta,
                                          static_cast<cuComplex*>(C), m, m_ * n_, g),
                "cublasCgemmStridedBatched");
    } else if (kind_ == Lib::CgemmI8) {
      checkBlas(cublasGemmStridedBatchedEx(blas_.h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, one, A, CUDA_C_8I, k, m_ * k_, B,
                                           CUDA_C_8I, k, n_ * k_, zero, C, CUDA_C_32F, m, m_ * n_, g,
                                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                "cublasGemmStridedBatchedEx (CUDA_C_8I -> CUDA_C_32F)");
    } else {
      checkBlas(cublasLtMatmul(plan_.lt, plan_.desc, one, A, plan_.a, B, plan_.b, zero, C, plan_.c, C, plan_.c,
                               &plan_.algo, reinterpret_cast<void*>(ws_->p), ws_->bytes, nullptr),
                "cublasLtMatmul (planar complex f16)");
    }
  }

 private:
  void upload(const void* host, std::size_t aBytes, std::size_t bBytes) {
    a_ = std::make_unique<DeviceBuffer>(aBytes);
    b_ = std::make_unique<DeviceBuffer>(bBytes);
    checkCu(cuMemcpyHtoD(a_->p, host, aBytes), "cuMemcpyHtoD (baseline A)");
    checkCu(cuMemcpyHtoD(b_->p, static_cast<const unsigned char*>(host) + aBytes, bBytes), "cuMemcpyHtoD (baseline B)");
  }

  // Bytes of one plane of `values` elements, rounded up so that the imaginary plane starts 256-byte aligned.
  static std::size_t planeBytes(long long values, int elemBytes) {
    return (static_cast<std::size_t>(values * elemBytes) + 255) / 256 * 256;
  }

  // Planar layout of g_ matrices rows x cols (column-major, ld = rows): all real parts, then (aligned) all imaginary
  // parts.
  cublasLtMatrixLayout_t planarLayout(cudaDataType t, long long rows, long long cols, int elemBytes) {
    cublasLtMatrixLayout_t l = nullptr;
    checkBlas(cublasLtMatrixLayoutCreate(&l, t, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols),
                                         rows),
              "cublasLtMatrixLayoutCreate");
    const std::int32_t count = static_cast<std::int32_t>(g_);
    const std::int64_t stride = rows * cols;  // in real sub-elements for planar complex
    const std::int64_t plane = static_cast<std::int64_t>(planeBytes(g_ * rows * cols, elemBytes));
    cublasStatus_t st = cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (st == CUBLAS_STATUS_SUCCESS)
      st = cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    if (st == CUBLAS_STATUS_SUCCESS)
      st = cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, &plane, sizeof plane);
    if (st != CUBLAS_STATUS_SUCCESS) cublasLtMatrixLayoutDestroy(l);
    checkBlas(st, "cublasLtMatrixLayoutSetAttribute (planar complex)");
    return l;
  }

  // Complex f32 output where cuBLASLt has a kernel for it, else complex f16 (planar both). False (and *why) if neither.
  bool setUpLt(std::string* why) {
    checkBlas(cublasLtCreate(&plan_.lt), "cublasLtCreate");
    ws_ = std::make_unique<DeviceBuffer>(64u << 20);
    // Weights used transposed (op T on [m][k]) first; planar complex may want op N: then [k][m], transposed on the
    // host.
    for (bool transposedA : {false, true})
      for (bool halfOut : {false, true}) {
        plan_.reset();
        checkBlas(cublasLtMatmulDescCreate(&plan_.desc, CUBLAS_COMPUTE_32F, CUDA_C_32F), "cublasLtMatmulDescCreate");
        const cublasOperation_t ta = transposedA ? CUBLAS_OP_N : CUBLAS_OP_T, nn = CUBLAS_OP_N;
        checkBlas(cublasLtMatmulDescSetAttribute(plan_.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
                  "desc transa");
        checkBlas(cublasLtMatmulDescSetAttribute(plan_.desc, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn),
                  "desc transb");
        plan_.a = transposedA ? planarLayout(CUDA_C_16F, m_, k_, 2) : planarLayout(CUDA_C_16F, k_, m_, 2);
        plan_.b = planarLayout(CUDA_C_16F, k_, n_, 2);
        plan_.c = planarLayout(halfOut ? CUDA_C_16F : CUDA_C_32F, m_, n_, halfOut ? 2 : 4);
        cublasLtMatmulPreference_t pref = nullptr;
        checkBlas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
        const std::uint64_t wsBytes = ws_->bytes;
        cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                                 &wsBytes, sizeof wsBytes);
        cublasLtMatmulHeuristicResult_t res{};
        int found = 0;
        if (st == CUBLAS_STATUS_SUCCESS)
          st = cublasLtMatmulAlgoGetHeuristic(plan_.lt, plan_.desc, plan_.a, plan_.b, plan_.c, plan_.c, pref, 1, &res,
                                              &found);
        cublasLtMatmulPreferenceDestroy(pref);
        if (st == CUBLAS_STATUS_SUCCESS && found > 0) {
          plan_.algo = res.algo;
          ltHalfOut_ = halfOut;
          ltTransposedA_ = transposedA;
          outBytes_ = 2 * planeBytes(g_ * m_ * n_, halfOut ? 2 : 4);
          if (transposedA) {  // [g][m][k] -> [g][k][m] in each plane
            const std::size_t plane = planeBytes(g_ * m_ * k_, 2);
            std::vector<unsigned char> t(ltHostA_.size(), 0);
            for (int part = 0; part < 2; ++part)
              for (long long g = 0; g < g_; ++g)
                for (long long m = 0; m < m_; ++m)
                  for (long long k = 0; k < k_; ++k)
                    std::memcpy(&t[part * plane + static_cast<std::size_t>(2 * ((g * k_ + k) * m_ + m))],
                                &ltHostA_[part * plane + static_cast<std::size_t>(2 * ((g * m_ + m) * k_ + k))], 2);
            checkCu(cuMemcpyHtoD(a_->p, t.data(), t.size()), "cuMemcpyHtoD (baseline A transposed)");
          }
          return true;
        }
      }
    if (why)
      *why =
          "cuBLASLt has no planar complex f16 GEMM for these sizes (no algorithm from cublasLtMatmulAlgoGetHeuristic, "
          "f32 or f16 output)";
    return false;
  }

  Lib kind_;
  long long g_ = 0, m_ = 0, n_ = 0, k_ = 0;
  BlasHandle blas_;
  LtPlan plan_;
  bool ltHalfOut_ = false, ltTransposedA_ = false, ok_ = false;
  std::vector<unsigned char> ltHostA_;  // the weights' planes as uploaded (for the op-N fallback)
  std::size_t outBytes_ = 0;
  std::unique_ptr<DeviceBuffer> a_, b_, c_, ws_;
};

}  // namespace

std::unique_ptr<BaselineRun> makeBaseline(const BaselineRequest& request, const TestData& data, long long batch,
                                          std::string* why) {
  if (const auto* fft = std::get_if<FftBaseline>(&request.library)) {
    auto run = std::make_unique<CufftRun>(request, *fft, data, batch, why);
    if (run->planned()) return run;
    return nullptr;
  }
  try {
    if (const auto* herk = std::get_if<HerkBaseline>(&request.library))
      return std::make_unique<BlasHerkRun>(request, *herk, data, batch);
    if (const auto* gemm = std::get_if<GemmBaseline>(&request.library)) {
      auto run = std::make_unique<BlasGemmRun>(request, *gemm, data, batch, why);
      if (run->ok()) return run;
      return nullptr;
    }
    return makeFirR2cBaseline(request, std::get<FirR2cBaseline>(request.library), data, batch, why);
  } catch (const std::exception& e) {  // a baseline the library refuses is reported, not fatal
    if (why) *why = e.what();
  }
  return nullptr;
}

}  // namespace warpforge
