#pragma once
// Result<T>: a value or the std::error_code that explains why there is none.
// Used where a constructor could fail on input (parameters, bytes from the wire)
// and exceptions are not wanted (C++20 has no std::expected).

#include <cassert>
#include <system_error>
#include <utility>
#include <variant>

namespace sumcache {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}                 // NOLINT: implicit by design
  Result(std::error_code error) : v_(error) { assert(error); }  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  std::error_code error() const { return ok() ? std::error_code{} : std::get<1>(v_); }

 private:
  std::variant<T, std::error_code> v_;
};

}  // namespace sumcache
