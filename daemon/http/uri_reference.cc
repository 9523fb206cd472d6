#include "daemon/http/uri_reference.h"

#include "daemon/http/field_value.h"
#include "daemon/http/uri_error.h"

namespace sumcache::daemon {
namespace {

bool starts_with_scheme(std::string_view ref) {
  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":" (RFC 3986 §3.1)
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const char c = ref[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (c == ':') return i > 0;
    if (!(alpha || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')))) {
      return false;
    }
  }
  return false;
}

std::string authority_of(const EffectiveUri& uri) {
  return uri.host + ":" + std::to_string(uri.port);
}

// RFC 3986 §5.2.3: the reference's path appended to the base path's directory.
std::string merge_paths(const EffectiveUri& base, std::string_view ref_path) {
  return base.path.substr(0, base.path.rfind('/') + 1) + std::string(ref_path);
}

void drop_last_segment(std::string& output) {
  const std::size_t slash = output.rfind('/');
  output.erase(slash == std::string::npos ? 0 : slash);
}

}  // namespace

std::string remove_dot_segments(std::string_view path) {
  std::string input(path);
  std::string output;
  while (!input.empty()) {
    if (input.starts_with("../")) {
      input.erase(0, 3);
    } else if (input.starts_with("./") || input.starts_with("/./")) {
      input.erase(0, 2);  // "/./g" leaves "/g"
    } else if (input == "/.") {
      input = "/";
    } else if (input.starts_with("/../")) {
      input.erase(0, 3);
      drop_last_segment(output);
    } else if (input == "/..") {
      input = "/";
      drop_last_segment(output);
    } else if (input == "." || input == "..") {
      input.clear();
    } else {
      const std::size_t next = input.find('/', 1);
      output += input.substr(0, next);
      input.erase(0, next);
    }
  }
  return output;
}

Result<EffectiveUri> resolve_reference(const EffectiveUri& base, std::string_view reference) {
  std::string_view ref = trim_ows(reference);
  ref = ref.substr(0, ref.find('#'));
  if (starts_with_scheme(ref)) {
    auto target = parse_absolute_uri(ref);
    if (target) target->path = remove_dot_segments(target->path);
    return target;
  }
  if (ref.starts_with("//")) {  // network-path reference
    auto target = parse_absolute_uri(base.scheme + ":" + std::string(ref));
    if (target) target->path = remove_dot_segments(target->path);
    return target;
  }
  const std::size_t question = ref.find('?');
  const std::string_view ref_path = ref.substr(0, question);
  std::string path;
  std::string query;
  if (ref_path.empty()) {
    path = base.path;
    if (question == std::string_view::npos && base.query) query = "?" + *base.query;
  } else {
    path = remove_dot_segments(ref_path.front() == '/' ? std::string(ref_path)
                                                       : merge_paths(base, ref_path));
  }
  if (question != std::string_view::npos) query = std::string(ref.substr(question));
  return parse_absolute_uri(base.scheme + "://" + authority_of(base) + path + query);
}

}  // namespace sumcache::daemon
