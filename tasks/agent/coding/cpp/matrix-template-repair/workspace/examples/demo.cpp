// Demo of mini/matrix.hpp: g++ -std=c++20 -Wall -Iinclude examples/demo.cpp -o demo && ./demo
#include <iostream>

#include "mini/matrix.hpp"

int main() {
    using mini::Matrix;
    Matrix<double, 2, 3> a{{1, 2, 3}, {4, 5, 6}};
    Matrix<double, 3, 2> b{{7, 8}, {9, 10}, {11, 12}};
    auto c = a * b;  // 2 x 2
    std::cout << "a*b =\n" << c << "\n";
    std::cout << "det(a*b) = " << determinant(c) << "\n";
    const auto id = Matrix<double, 3, 3>::identity();
    std::cout << "id(1,1) = " << id(1, 1) << "\n";
    std::cout << "2*a =\n" << 2 * a << "\n";
    std::cout << "transpose(a) =\n" << transpose(a) << "\n";
    mini::Vector<int, 3> u{{1}, {2}, {3}}, v{{4}, {5}, {6}};
    std::cout << "u.v = " << dot(u, v) << "\n";
    auto halves = a.map([](double x) { return static_cast<int>(x / 2); });
    std::cout << "halves =\n" << halves << "\n";
    return 0;
}
