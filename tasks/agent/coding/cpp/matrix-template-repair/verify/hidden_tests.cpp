// Hidden tests for mini/matrix.hpp: compile-time API checks plus randomised numeric checks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "bananabench_test.hpp"
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mini/matrix.hpp"

using mini::Matrix;
using mini::Vector;

static int failures = 0;
#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);         \
            ++failures;                                                         \
        }                                                                       \
    } while (0)

template <typename M>
concept HasIdentity = requires { M::identity(); };
template <typename A, typename B>
concept Multipliable = requires(const A& a, const B& b) { a * b; };
template <typename A, typename B>
concept Addable = requires(const A& a, const B& b) { a + b; };
template <typename M>
concept HasDeterminant = requires(const M& m) { determinant(m); };

// compile-time shape of the API
static_assert(HasIdentity<Matrix<int, 3, 3>>);
static_assert(!HasIdentity<Matrix<int, 2, 3>>, "identity() must not exist for non-square matrices");
static_assert(Multipliable<Matrix<int, 2, 3>, Matrix<int, 3, 4>>);
static_assert(!Multipliable<Matrix<int, 2, 3>, Matrix<int, 2, 3>>, "(2x3)*(2x3) must not compile");
static_assert(!Multipliable<Matrix<int, 2, 3>, Matrix<int, 4, 2>>);
static_assert(std::is_same_v<decltype(Matrix<int, 2, 3>{} * Matrix<int, 3, 4>{}), Matrix<int, 3 - 1, 4>>);
static_assert(Multipliable<int, Matrix<double, 2, 2>>);
static_assert(Multipliable<Matrix<double, 2, 2>, long>);
static_assert(Multipliable<float, Matrix<int, 1, 4>>);
static_assert(std::is_same_v<decltype(2.5 * Matrix<int, 2, 2>{}), Matrix<int, 2, 2>>, "scaling keeps T");
static_assert(!Addable<Matrix<int, 2, 3>, Matrix<int, 3, 2>>);
static_assert(HasDeterminant<Matrix<double, 4, 4>>);
static_assert(!HasDeterminant<Matrix<double, 2, 4>>);
static_assert(Matrix<char, 3, 7>::rows() == 3 && Matrix<char, 3, 7>::cols() == 7);
static_assert(std::is_same_v<decltype(transpose(Matrix<int, 2, 5>{})), Matrix<int, 5, 2>>);
static_assert(std::is_same_v<Vector<float, 4>, Matrix<float, 4, 1>>);
static_assert(std::is_same_v<decltype(std::declval<const Matrix<int, 2, 2>&>()(0, 0)), const int&>);
static_assert(std::is_same_v<decltype(std::declval<Matrix<int, 2, 2>&>()(0, 0)), int&>);

// a generic caller: needs `template` disambiguation to work inside the library
template <typename T, std::size_t R, std::size_t C>
T corner_sum(const Matrix<T, R, C>& m) {
    return m.template get<0, 0>() + m.template get<R - 1, C - 1>();
}

std::mt19937_64 rng(20240601);

template <typename T, std::size_t R, std::size_t C>
Matrix<T, R, C> random_matrix(int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    Matrix<T, R, C> m;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) m(i, j) = static_cast<T>(d(rng));
    return m;
}

// determinant by the Leibniz formula over all permutations
template <std::size_t N>
long long leibniz(const Matrix<long long, N, N>& m) {
    std::vector<std::size_t> p(N);
    for (std::size_t i = 0; i < N; ++i) p[i] = i;
    long long total = 0;
    do {
        long long term = 1;
        int inversions = 0;
        for (std::size_t i = 0; i < N; ++i) {
            term *= m(i, p[i]);
            for (std::size_t j = i + 1; j < N; ++j) inversions += p[i] > p[j];
        }
        total += inversions % 2 ? -term : term;
    } while (std::next_permutation(p.begin(), p.end()));
    return total;
}

template <std::size_t R, std::size_t K, std::size_t C>
void check_product() {
    for (int round = 0; round < 200; ++round) {
        auto a = random_matrix<long long, R, K>(-50, 50);
        auto b = random_matrix<long long, K, C>(-50, 50);
        const auto p = a * b;
        bool ok = true;
        for (std::size_t i = 0; i < R; ++i)
            for (std::size_t j = 0; j < C; ++j) {
                long long s = 0;
                for (std::size_t k = 0; k < K; ++k) s += a(i, k) * b(k, j);
                ok = ok && p(i, j) == s;
            }
        CHECK(ok);
        CHECK(transpose(p) == transpose(b) * transpose(a));
    }
}

template <std::size_t N>
void check_determinant() {
    for (int round = 0; round < 200; ++round) {
        const auto m = random_matrix<long long, N, N>(-9, 9);
        CHECK(determinant(m) == leibniz(m));
        CHECK(determinant(transpose(m)) == determinant(m));
    }
    CHECK(determinant(Matrix<long long, N, N>::identity()) == 1);
}

BB_TEST(matrix_api_and_numerics) {
    // construction and access
    Matrix<int, 2, 3> a{{1, 2, 3}, {4, 5, 6}};
    const Matrix<int, 2, 3> ca = a;
    CHECK(ca(1, 2) == 6 && ca(0, 0) == 1);
    CHECK((ca.get<1, 0>() == 4));
    a(0, 1) = 20;
    a.get<1, 1>() = 50;
    CHECK(a(0, 1) == 20 && a(1, 1) == 50 && ca(0, 1) == 2);
    CHECK(corner_sum(ca) == 7);
    CHECK(corner_sum(Matrix<double, 1, 1>{{2.5}}) == 5.0);
    Matrix<int, 2, 2> zeros;
    CHECK(zeros(0, 0) == 0 && zeros(1, 1) == 0);
    Matrix<int, 2, 2> partial{{1}, {2, 3}};
    CHECK(partial(0, 0) == 1 && partial(0, 1) == 0 && partial(1, 1) == 3);

    // identity
    const auto id4 = Matrix<double, 4, 4>::identity();
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 4; ++j) CHECK(id4(i, j) == (i == j ? 1.0 : 0.0));
    auto r44 = random_matrix<double, 4, 4>(-5, 5);
    CHECK(r44 * id4 == r44 && id4 * r44 == r44);

    // arithmetic
    Matrix<int, 2, 3> b{{6, 5, 4}, {3, 2, 1}};
    CHECK((ca + b == Matrix<int, 2, 3>{{7, 7, 7}, {7, 7, 7}}));
    CHECK((ca - ca == Matrix<int, 2, 3>{}));
    CHECK(ca != b);
    CHECK((2 * ca == Matrix<int, 2, 3>{{2, 4, 6}, {8, 10, 12}}));
    CHECK((ca * 3L == Matrix<int, 2, 3>{{3, 6, 9}, {12, 15, 18}}));
    Matrix<double, 1, 2> half{{1.0, 3.0}};
    CHECK((half * 2 == Matrix<double, 1, 2>{{2.0, 6.0}}));
    CHECK((0.5f * half == Matrix<double, 1, 2>{{0.5, 1.5}}));
    CHECK((2.9 * Matrix<int, 1, 1>{{2}} == Matrix<int, 1, 1>{{4}}));  // scalar converted to T first
    check_product<1, 1, 1>();
    check_product<2, 3, 4>();
    check_product<4, 1, 3>();
    check_product<3, 5, 2>();
    check_product<6, 6, 6>();

    // determinant and minors
    CHECK(determinant(Matrix<int, 1, 1>{{-7}}) == -7);
    CHECK(determinant(Matrix<int, 2, 2>{{1, 2}, {3, 4}}) == -2);
    CHECK(std::fabs(determinant(Matrix<double, 3, 3>{{2, 0, 1}, {1, 3, 2}, {1, 1, 2}}) - 6.0) < 1e-12);
    check_determinant<2>();
    check_determinant<3>();
    check_determinant<4>();
    check_determinant<5>();
    auto mi = mini::minor_of(Matrix<int, 3, 3>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, 1, 1);
    CHECK((mi == Matrix<int, 2, 2>{{1, 3}, {7, 9}}));

    // map, vectors, dot
    auto asDouble = ca.map([](int v) { return v / 2.0; });
    static_assert(std::is_same_v<decltype(asDouble), Matrix<double, 2, 3>>);
    CHECK(asDouble(1, 2) == 3.0 && asDouble(0, 0) == 0.5);
    auto asText = ca.map([](int v) { return std::to_string(v * v); });
    CHECK(asText(1, 1) == "25");
    Vector<int, 3> u{{1}, {2}, {3}}, v{{4}, {-5}, {6}};
    CHECK(dot(u, v) == 12);
    const Vector<double, 2> cu{{0.5}, {2.0}};
    CHECK(dot(cu, cu) == 4.25);
    for (int round = 0; round < 200; ++round) {
        auto x = random_matrix<long long, 7, 1>(-100, 100), y = random_matrix<long long, 7, 1>(-100, 100);
        long long s = 0;
        for (std::size_t i = 0; i < 7; ++i) s += x(i, 0) * y(i, 0);
        CHECK(dot(x, y) == s);
    }

    // printing
    std::ostringstream os;
    os << Matrix<int, 2, 2>{{1, 2}, {3, 4}};
    CHECK(os.str() == "[1 2\n 3 4]");

    BB_CHECK_EQ(failures, 0);
}

BB_MAIN()
