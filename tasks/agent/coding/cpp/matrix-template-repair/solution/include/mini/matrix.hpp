// mini/matrix.hpp — fixed-size matrices with compile-time dimensions.
//
// API:
//   Matrix<T, R, C>                      R x C matrix of T, value-initialised (zeros)
//   Matrix<T, R, C>{{...}, {...}}        construction from nested initializer lists (row by row)
//   m(i, j)                              element access, for const and non-const matrices
//   m.template get<I, J>()               compile-time checked element access
//   m.rows(), m.cols()                   dimensions (static constexpr)
//   a + b, a - b                         element-wise, same dimensions and element type
//   a * b                                matrix product: (R x K) * (K x C) -> (R x C)
//   s * m, m * s                         scaling by any arithmetic scalar (converted to T)
//   transpose(m)                         C x R result
//   Matrix<T, N, N>::identity()          only exists for square matrices
//   determinant(m)                       square matrices only, by cofactor expansion
//   m.map(f)                             element-wise f; the element type is f's result type
//   Vector<T, N>                         alias for Matrix<T, N, 1>
//   dot(a, b)                            dot product of two Vectors of the same size
//   operator== / operator!=              element-wise equality
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <ostream>
#include <type_traits>

namespace mini {

template <typename T, std::size_t R, std::size_t C>
class Matrix {
    static_assert(R > 0 && C > 0, "matrix dimensions must be positive");

public:
    using value_type = T;

    Matrix() : data_{} {}

    Matrix(std::initializer_list<std::initializer_list<T>> rows) : data_{} {
        std::size_t i = 0;
        for (const auto& row : rows) {
            std::size_t j = 0;
            for (const auto& v : row) {
                if (i < R && j < C) data_[i * C + j] = v;
                ++j;
            }
            ++i;
        }
    }

    static constexpr std::size_t rows() { return R; }
    static constexpr std::size_t cols() { return C; }

    T& operator()(std::size_t i, std::size_t j) { return data_[i * C + j]; }
    const T& operator()(std::size_t i, std::size_t j) const { return data_[i * C + j]; }

    template <std::size_t I, std::size_t J>
    T& get() {
        static_assert(I < R && J < C, "index out of range");
        return data_[I * C + J];
    }

    template <std::size_t I, std::size_t J>
    const T& get() const {
        static_assert(I < R && J < C, "index out of range");
        return data_[I * C + J];
    }

    static Matrix identity()
        requires(R == C)
    {
        Matrix m;
        for (std::size_t i = 0; i < R; ++i) m(i, i) = T{1};
        return m;
    }

    template <typename F>
    auto map(F f) const {
        Matrix<decltype(f(data_[0])), R, C> out;
        for (std::size_t i = 0; i < R; ++i)
            for (std::size_t j = 0; j < C; ++j) out(i, j) = f((*this)(i, j));
        return out;
    }

private:
    std::array<T, R * C> data_;
};

template <typename T, std::size_t N>
using Vector = Matrix<T, N, 1>;

template <typename T, std::size_t R, std::size_t C>
bool operator==(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j)
            if (!(a(i, j) == b(i, j))) return false;
    return true;
}

template <typename T, std::size_t R, std::size_t C>
bool operator!=(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
    return !(a == b);
}

template <typename T, std::size_t R, std::size_t C>
Matrix<T, R, C> operator+(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
    Matrix<T, R, C> out;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) out(i, j) = a(i, j) + b(i, j);
    return out;
}

template <typename T, std::size_t R, std::size_t C>
Matrix<T, R, C> operator-(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
    Matrix<T, R, C> out;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) out(i, j) = a(i, j) - b(i, j);
    return out;
}

template <typename T, std::size_t R, std::size_t K, std::size_t C>
Matrix<T, R, C> operator*(const Matrix<T, R, K>& a, const Matrix<T, K, C>& b) {
    Matrix<T, R, C> out;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) {
            T sum{};
            for (std::size_t k = 0; k < K; ++k) sum += a(i, k) * b(k, j);
            out(i, j) = sum;
        }
    return out;
}

template <typename S, typename T, std::size_t R, std::size_t C>
    requires std::is_arithmetic_v<S>
Matrix<T, R, C> operator*(S s, const Matrix<T, R, C>& m) {
    const T factor = static_cast<T>(s);
    Matrix<T, R, C> out;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) out(i, j) = factor * m(i, j);
    return out;
}

template <typename S, typename T, std::size_t R, std::size_t C>
    requires std::is_arithmetic_v<S>
Matrix<T, R, C> operator*(const Matrix<T, R, C>& m, S s) {
    return s * m;
}

template <typename T, std::size_t R, std::size_t C>
Matrix<T, C, R> transpose(const Matrix<T, R, C>& m) {
    Matrix<T, C, R> out;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) out(j, i) = m(i, j);
    return out;
}

// The matrix without row `skip_r` and column `skip_c`.
template <typename T, std::size_t N>
Matrix<T, N - 1, N - 1> minor_of(const Matrix<T, N, N>& m, std::size_t skip_r, std::size_t skip_c) {
    Matrix<T, N - 1, N - 1> out;
    for (std::size_t i = 0, oi = 0; i < N; ++i) {
        if (i == skip_r) continue;
        for (std::size_t j = 0, oj = 0; j < N; ++j) {
            if (j == skip_c) continue;
            out(oi, oj++) = m(i, j);
        }
        ++oi;
    }
    return out;
}

template <typename T, std::size_t N>
T determinant(const Matrix<T, N, N>& m) {
    if constexpr (N == 1) {
        return m(0, 0);
    } else {
        T det{};
        T sign{1};
        for (std::size_t j = 0; j < N; ++j) {
            det += sign * m(0, j) * determinant(minor_of(m, 0, j));
            sign = -sign;
        }
        return det;
    }
}

template <typename T, std::size_t N>
T dot(const Vector<T, N>& a, const Vector<T, N>& b) {
    typename Matrix<T, 1, 1>::value_type sum{};
    auto p = transpose(a) * b;
    sum = p.template get<0, 0>();
    return sum;
}

template <typename T, std::size_t R, std::size_t C>
std::ostream& operator<<(std::ostream& os, const Matrix<T, R, C>& m) {
    for (std::size_t i = 0; i < R; ++i) {
        os << (i == 0 ? "[" : " ");
        for (std::size_t j = 0; j < C; ++j) os << (j ? " " : "") << m(i, j);
        os << (i + 1 == R ? "]" : "\n");
    }
    return os;
}

}  // namespace mini
