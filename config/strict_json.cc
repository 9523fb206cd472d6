#include "config/strict_json.h"

#include <set>
#include <string>
#include <vector>

namespace sumcache::config::detail {
namespace {

// Follows the parser's events to know the JSON path of the value being parsed.
class PathTracker {
 public:
  bool on_event(Json::parse_event_t event, const Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start:
        open(false);
        break;
      case E::array_start:
        open(true);
        break;
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        value_done();
        break;
      case E::key:
        on_key(parsed.get<std::string>());
        break;
      case E::value:
        value_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_array = false;
    std::size_t index = 0;       // of the next element, in an array
    std::string key;             // of the current field, in an object
    std::set<std::string> keys;  // seen so far, in an object
  };

  void open(bool is_array) {
    Frame frame;
    frame.is_array = is_array;
    frames_.push_back(std::move(frame));
  }

  void value_done() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }

  void on_key(std::string key) {
    Frame& frame = frames_.back();
    if (!frame.keys.insert(key).second) {
      throw ConfigError(child_path(path(), key), "field given more than once");
    }
    frame.key = std::move(key);
  }

  // The path of the innermost open object or array.
  std::string path() const {
    std::string result = "$";
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      result = frames_[i].is_array ? element_path(result, frames_[i].index)
                                   : child_path(result, frames_[i].key);
    }
    return result;
  }

  std::vector<Frame> frames_;
};

// nlohmann's messages start with "[json.exception.parse_error.101] ": keep what follows.
std::string without_prefix(const char* what) {
  std::string text = what;
  auto end = text.find("] ");
  return end == std::string::npos ? text : text.substr(end + 2);
}

}  // namespace

Json parse_strict_json(std::string_view text) {
  PathTracker tracker;
  auto callback = [&tracker](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    return tracker.on_event(event, parsed);
  };
  try {
    return Json::parse(text, callback);
  } catch (const Json::exception& e) {
    throw ConfigError("$", "invalid JSON: " + without_prefix(e.what()));
  }
}

}  // namespace sumcache::config::detail
