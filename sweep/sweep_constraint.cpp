#include "sweep/sweep_constraint.hpp"

#include <cctype>
#include <cmath>

#include "core/error.hpp"

namespace roofsim {

// A tree of numbers, names, + - * / and one comparison at the top.
struct Constraint::Node {
  char op = 0;  // 0: a number or a name; + - * /; comparisons: '<' 'l' (<=) '>' 'g' (>=) '=' '!'
  double number = 0;
  std::string name;
  std::unique_ptr<Node> left, right;
};

namespace {

using Node = Constraint::Node;

// Recursive descent over: comparison := sum OP sum; sum := product (('+'|'-') product)*;
// product := atom (('*'|'/') atom)*; atom := number | name | '(' sum ')' | '-' atom.
class Parser {
 public:
  Parser(const std::string& text, std::vector<std::string>& names) : text_(text), names_(names) {}

  std::unique_ptr<Node> comparison() {
    auto left = sum();
    skip_space();
    static const std::pair<const char*, char> kOps[] = {{"<=", 'l'}, {">=", 'g'}, {"==", '='}, {"!=", '!'}, {"<", '<'}, {">", '>'}};
    char op = 0;
    for (const auto& [symbol, code] : kOps) {
      if (text_.compare(pos_, std::char_traits<char>::length(symbol), symbol) == 0) {
        op = code;
        pos_ += std::char_traits<char>::length(symbol);
        break;
      }
    }
    if (!op) fail("expected a comparison (<, <=, >, >=, ==, !=)");
    auto node = std::make_unique<Node>();
    node->op = op;
    node->left = std::move(left);
    node->right = sum();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
    return node;
  }

 private:
  std::unique_ptr<Node> sum() {
    auto left = product();
    for (skip_space(); pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'); skip_space()) {
      const char op = text_[pos_++];  // before the operand is parsed: argument order is unspecified
      left = binary(op, std::move(left), product());
    }
    return left;
  }

  std::unique_ptr<Node> product() {
    auto left = atom();
    for (skip_space(); pos_ < text_.size() && (text_[pos_] == '*' || text_[pos_] == '/'); skip_space()) {
      const char op = text_[pos_++];
      left = binary(op, std::move(left), atom());
    }
    return left;
  }

  std::unique_ptr<Node> atom() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a number or a name");
    auto node = std::make_unique<Node>();
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      node = sum();
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ')') fail("expected ')'");
      ++pos_;
    } else if (c == '-') {
      ++pos_;
      auto zero = std::make_unique<Node>();
      node = binary('-', std::move(zero), atom());
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::size_t used = 0;
      try {
        node->number = std::stod(text_.substr(pos_), &used);
      } catch (const std::exception&) {
        fail("not a number");
      }
      if (!std::isfinite(node->number)) fail("not a finite number");
      pos_ += used;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' || text_[pos_] == '.')) ++pos_;
      node->name = text_.substr(start, pos_ - start);
      names_.push_back(node->name);
    } else {
      fail("unexpected '" + std::string(1, c) + "'");
    }
    return node;
  }

  static std::unique_ptr<Node> binary(char op, std::unique_ptr<Node> left, std::unique_ptr<Node> right) {
    auto node = std::make_unique<Node>();
    node->op = op;
    node->left = std::move(left);
    node->right = std::move(right);
    return node;
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError("constraint '" + text_ + "': " + problem + " at column " + std::to_string(pos_ + 1));
  }

  const std::string& text_;
  std::vector<std::string>& names_;
  std::size_t pos_ = 0;
};

double evaluate(const Node& n, const std::string& text, const std::function<std::optional<double>(const std::string&)>& value_of) {
  if (n.op == 0) {
    if (n.name.empty()) return n.number;
    const std::optional<double> v = value_of(n.name);
    if (!v) throw InputError("constraint '" + text + "': '" + n.name + "' is not a numeric setting of the sweep's points");
    return *v;
  }
  const double a = evaluate(*n.left, text, value_of), b = evaluate(*n.right, text, value_of);
  switch (n.op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    case '<': return a < b;
    case 'l': return a <= b;
    case '>': return a > b;
    case 'g': return a >= b;
    case '=': return a == b;
    default: return a != b;
  }
}

}  // namespace

Constraint::Constraint(const std::string& text) : text_(text) {
  root_ = Parser(text_, names_).comparison();
}

Constraint::~Constraint() = default;
Constraint::Constraint(Constraint&&) noexcept = default;
Constraint& Constraint::operator=(Constraint&&) noexcept = default;

bool Constraint::holds(const std::function<std::optional<double>(const std::string&)>& value_of) const {
  return evaluate(*root_, text_, value_of) != 0.0;
}

}  // namespace roofsim
