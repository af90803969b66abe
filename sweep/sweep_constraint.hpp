#pragma once
// A sweep file's constraints: comparisons of arithmetic over a point's numeric settings,
// such as "tp * pp <= 8" or "prompt + gen <= 4096". Parsed once (errors say where in the
// text), evaluated per point with the point's values.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofsim {

class Constraint {
 public:
  // Throws InputError "constraint 'TEXT': PROBLEM at column N".
  explicit Constraint(const std::string& text);
  ~Constraint();
  Constraint(Constraint&&) noexcept;
  Constraint& operator=(Constraint&&) noexcept;
  // Whether the point satisfies it; `value_of` gives a name's value (nullopt: not a number of
  // this point, an InputError naming the constraint).
  bool holds(const std::function<std::optional<double>(const std::string&)>& value_of) const;
  const std::string& text() const { return text_; }
  // The names it reads, in order of appearance.
  const std::vector<std::string>& names() const { return names_; }

  struct Node;

 private:
  std::string text_;
  std::vector<std::string> names_;
  std::unique_ptr<Node> root_;
};

}  // namespace roofsim
