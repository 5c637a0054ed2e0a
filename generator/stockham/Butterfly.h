#pragma once
// Small DFTs (the Stockham radices) as straight-line code over an abstract
// complex arithmetic `Ops`, so the same algorithm is emitted as CUDA (through
// the AST) and evaluated in double on the CPU by the tests.
//
//  - powers of two (4, 8, 16): Cooley-Tukey splits R = P * Q with constant
//    internal twiddles; quarter turns become swaps/negations, eighth turns one
//    real scale;
//  - odd primes (3, 5, ..., 31): the symmetric form that pairs x_j with
//    x_{R-j}: (R-1)^2 real multiplications instead of 4 R^2.
//
// Ops must provide: type C; C add(C, C); C sub(C, C); C neg(C); C mulI(C) (i*v);
// C scale(C, double); C mulConst(C, double re, double im).
#include <cmath>
#include <stdexcept>
#include <vector>

namespace warpforge {

template <class Ops>
class DftBuilder {
 public:
  using C = typename Ops::C;
  DftBuilder(Ops& ops, int sign) : ops_(ops), sign_(sign) {}

  // y_k = sum_j x_j exp(sign 2 pi i j k / R), R = x.size().
  std::vector<C> dft(const std::vector<C>& x) {
    const int R = static_cast<int>(x.size());
    if (R == 1) return x;
    if (R == 2) return {ops_.add(x[0], x[1]), ops_.sub(x[0], x[1])};
    if (R % 2 == 0) return split(x, R == 16 ? 4 : 2);
    for (int p = 3; p * p <= R; p += 2)
      if (R % p == 0) return split(x, p);
    return oddPrime(x);
  }

  // v * exp(sign 2 pi i num / den), with exact forms for multiples of pi/4.
  C rotate(const C& v, long long num, long long den) {
    num %= den;
    if (num < 0) num += den;
    if (num == 0) return v;
    if ((8 * num) % den == 0) {
      int eighth = static_cast<int>(8 * num / den);  // angle = eighth * pi/4 (times sign)
      if (sign_ < 0) eighth = (8 - eighth) % 8;
      switch (eighth) {
        case 2: return ops_.mulI(v);
        case 4: return ops_.neg(v);
        case 6: return ops_.neg(ops_.mulI(v));
        default: {
          // (+-1 +- i)/sqrt2: one complex add and a real scale
          const double h = std::sqrt(0.5);
          C iv = ops_.mulI(v);
          switch (eighth) {
            case 1: return ops_.scale(ops_.add(v, iv), h);
            case 3: return ops_.scale(ops_.sub(iv, v), h);
            case 5: return ops_.scale(ops_.add(v, iv), -h);
            default: return ops_.scale(ops_.sub(v, iv), h);  // 7
          }
        }
      }
    }
    const double a = 2.0 * M_PI * static_cast<double>(num) / static_cast<double>(den);
    return ops_.mulConst(v, std::cos(a), sign_ * std::sin(a));
  }

 private:
  // Cooley-Tukey R = P * Q: X[k1 + Q k2] = sum_j1 w_P^{j1 k2} w_R^{j1 k1} Y_j1[k1],
  // Y_j1 = DFT_Q(x[j1 + P j2]).
  std::vector<C> split(const std::vector<C>& x, int P) {
    const int R = static_cast<int>(x.size()), Q = R / P;
    std::vector<std::vector<C>> Y(P);
    for (int j1 = 0; j1 < P; ++j1) {
      std::vector<C> col;
      for (int j2 = 0; j2 < Q; ++j2) col.push_back(x[j1 + P * j2]);
      Y[j1] = dft(col);
      for (int k1 = 0; k1 < Q; ++k1) Y[j1][k1] = rotate(Y[j1][k1], static_cast<long long>(j1) * k1, R);
    }
    std::vector<C> X(R);
    for (int k1 = 0; k1 < Q; ++k1) {
      std::vector<C> row;
      for (int j1 = 0; j1 < P; ++j1) row.push_back(Y[j1][k1]);
      std::vector<C> out = dft(row);
      for (int k2 = 0; k2 < P; ++k2) X[k1 + Q * k2] = out[k2];
    }
    return X;
  }

  // a_j = x_j + x_{R-j}, b_j = x_j - x_{R-j};
  // y_k = x_0 + sum_j cos(2pi jk/R) a_j + i sum_j sin(sign 2pi jk/R) b_j, y_{R-k} its mirror.
  std::vector<C> oddPrime(const std::vector<C>& x) {
    const int R = static_cast<int>(x.size()), h = (R - 1) / 2;
    std::vector<C> a, b;
    for (int j = 1; j <= h; ++j) {
      a.push_back(ops_.add(x[j], x[R - j]));
      b.push_back(ops_.sub(x[j], x[R - j]));
    }
    std::vector<C> y(R);
    C sum = x[0];
    for (const C& aj : a) sum = ops_.add(sum, aj);
    y[0] = sum;
    for (int k = 1; k <= h; ++k) {
      C A = x[0], B{};
      bool haveB = false;
      for (int j = 1; j <= h; ++j) {
        const double ang = 2.0 * M_PI * ((static_cast<long long>(j) * k) % R) / R;
        A = ops_.add(A, ops_.scale(a[j - 1], std::cos(ang)));
        C t = ops_.scale(b[j - 1], sign_ * std::sin(ang));
        B = haveB ? ops_.add(B, t) : t;
        haveB = true;
      }
      C iB = ops_.mulI(B);
      y[k] = ops_.add(A, iB);
      y[R - k] = ops_.sub(A, iB);
    }
    return y;
  }

  Ops& ops_;
  int sign_;
};

}  // namespace warpforge
