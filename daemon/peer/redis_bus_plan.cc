#include "daemon/peer/redis_bus_plan.h"

#include <charconv>
#include <set>

#include "daemon/peer/redis_keys.h"

namespace sumcache::daemon {
namespace {

// Decimal digits only, no sign, no overflow.
std::optional<std::int64_t> decimal(std::string_view text, std::size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool is_string(const RedisReply& r) { return r.type == RedisReply::Type::string; }
bool is_array(const RedisReply& r) { return r.type == RedisReply::Type::array; }

// One [id, [field, value...]] entry of stream `node`; nullopt: the entry's shape is wrong.
std::optional<RedisStreamEntry> stream_entry(RedisReply&& e, const std::string& node) {
  if (!is_array(e) || e.elements.size() != 2 || !is_string(e.elements[0])) return std::nullopt;
  RedisStreamEntry out;
  out.node = node;
  out.id = std::move(e.elements[0].str);
  RedisReply& fields = e.elements[1];
  // XREAD gives a deleted entry's fields as nil (XDEL of an unread entry).
  if (!is_array(fields) && !fields.is_nil()) return std::nullopt;
  out.sequence = parse_stream_id(out.id);
  if (!out.sequence) {
    out.why = "entry ID " + out.id.substr(0, 40) + " is not <sequence>-0";
  } else if (fields.elements.size() != 2 || !is_string(fields.elements[0]) ||
             fields.elements[0].str != "m" || !is_string(fields.elements[1])) {
    out.why = "entry " + out.id + " does not hold exactly the field \"m\"";
    out.sequence.reset();
  } else {
    out.message = std::move(fields.elements[1].str);
  }
  return out;
}

}  // namespace

const char* to_string(RedisRefusal r) {
  switch (r) {
    case RedisRefusal::member_bad_tag:
      return "member_bad_tag";
    case RedisRefusal::member_malformed:
      return "member_malformed";
    case RedisRefusal::message_bad_tag:
      return "message_bad_tag";
    case RedisRefusal::message_malformed:
      return "message_malformed";
    case RedisRefusal::message_wrong_node:
      return "message_wrong_node";
    case RedisRefusal::message_unusable:
      return "message_unusable";
    case RedisRefusal::entry_malformed:
      return "entry_malformed";
    case RedisRefusal::reply_malformed:
      return "reply_malformed";
    case RedisRefusal::message_stale_epoch:
      return "message_stale_epoch";
    case RedisRefusal::member_stale_epoch:
      return "member_stale_epoch";
  }
  return "reply_malformed";
}

std::optional<RedisPairs> hash_pairs(RedisReply&& reply) {
  if (!is_array(reply) || reply.elements.size() % 2 != 0) return std::nullopt;
  RedisPairs out;
  out.reserve(reply.elements.size() / 2);
  for (std::size_t i = 0; i < reply.elements.size(); i += 2) {
    if (!is_string(reply.elements[i]) || !is_string(reply.elements[i + 1])) return std::nullopt;
    out.emplace_back(std::move(reply.elements[i].str), std::move(reply.elements[i + 1].str));
  }
  return out;
}

std::optional<std::int64_t> time_ms(const RedisReply& reply) {
  if (!is_array(reply) || reply.elements.size() != 2 || !is_string(reply.elements[0]) ||
      !is_string(reply.elements[1])) {
    return std::nullopt;
  }
  // 12 digits of seconds reach the year 33658: a longer time is no clock's.
  const auto seconds = decimal(reply.elements[0].str, 12);
  const auto micros = decimal(reply.elements[1].str, 6);
  if (!seconds || !micros) return std::nullopt;
  return *seconds * 1000 + *micros / 1000;
}

RedisMembershipPlan plan_redis_membership(const RedisMembershipInput& in) {
  RedisMembershipPlan plan;
  std::map<std::string_view, std::string_view> seen;
  for (const auto& [id, value] : in.seen) seen.emplace(id, value);
  std::set<std::string_view> members;
  for (const auto& [id, record] : in.members) {
    members.insert(id);
    if (id == in.self) continue;
    const auto s = seen.find(id);
    // A seen value that is no time is as good as none: the member is stale.
    const auto at = s == seen.end() ? std::nullopt : decimal(s->second, 15);
    if (!at || in.now_ms - *at > in.expiry.count()) {
      plan.reap.push_back({id, s == seen.end() ? std::string() : std::string(s->second)});
      continue;
    }
    MemberDecode d = decode_member(id, record, in.secret);
    if (!d.record) {
      plan.refused.push_back({id, record, d.refusal, std::move(d.why)});
      continue;
    }
    plan.live.push_back(std::move(*d.record));
  }
  // A heartbeat whose record is gone (a reap raced it): the next heartbeat writes both again.
  for (const auto& [id, value] : in.seen) {
    if (!members.contains(id) && id != in.self) {
      const auto at = decimal(value, 15);
      if (!at || in.now_ms - *at > in.expiry.count()) plan.reap.push_back({id, value});
    }
  }
  return plan;
}

RedisXread parse_xread(RedisReply&& reply, const std::map<std::string, std::string>& streams) {
  RedisXread out;
  if (reply.is_nil()) return out;
  if (!is_array(reply)) {
    out.error = "not an array";
    return out;
  }
  for (RedisReply& stream : reply.elements) {
    if (!is_array(stream) || stream.elements.size() != 2 || !is_string(stream.elements[0]) ||
        !is_array(stream.elements[1])) {
      out.entries.clear();
      out.error = "a stream is not [key, entries]";
      return out;
    }
    const auto node = streams.find(stream.elements[0].str);
    if (node == streams.end()) {
      out.entries.clear();
      out.error = "a stream that was not asked for";
      return out;
    }
    for (RedisReply& e : stream.elements[1].elements) {
      auto entry = stream_entry(std::move(e), node->second);
      if (!entry) {
        out.entries.clear();
        out.error = "an entry of " + node->first + " is not [id, fields]";
        return out;
      }
      out.entries.push_back(std::move(*entry));
    }
  }
  return out;
}

bool redis_full_due(const RedisFullState& full, std::uint64_t sequence,
                    std::uint32_t stream_length) {
  if (full.stale || sequence < full.sequence) return true;
  // MAXLEN ~ keeps at least stream_length entries: half of it leaves the
  // reader that fetched the full room to be slow.
  return sequence - full.sequence >= stream_length / 2;
}

}  // namespace sumcache::daemon
