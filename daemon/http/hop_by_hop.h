#pragma once
// Fields that belong to one connection, not to the message (RFC 9110 §7.6.1),
// and the Via field a proxy adds (RFC 9110 §7.6.3).

#include <string>
#include <string_view>
#include <vector>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

// Connection, Keep-Alive, Proxy-Connection, Proxy-Authenticate,
// Proxy-Authorization, TE, Trailer, Transfer-Encoding, Upgrade: the
// RFC 9110 §7.6.1 list with RFC 2616 §13.5.1's and the non-standard
// Proxy-Connection that old clients still send.
bool is_hop_by_hop(std::string_view name);

// The field names one Connection field value lists: hop-by-hop in that
// message too (RFC 9110 §7.6.1).
void add_connection_options(std::string_view connection_value, std::vector<std::string>& out);
// Whether a field is hop-by-hop: on the list above, or one of `connection_options`.
bool is_hop_by_hop(std::string_view name, const std::vector<std::string>& connection_options);

// Removes the fields above and every field named in Connection, before a
// message is forwarded or stored (RFC 9110 §7.6.1, RFC 9111 §3.1).
void remove_hop_by_hop(HeaderList& fields);

// The Via member this proxy appends: "<received-protocol> <node-id>", e.g.
// "1.1 cache-a" (the protocol name is omitted for HTTP, RFC 9110 §7.6.3).
std::string via_entry(std::string_view received_version, std::string_view node_id);

// A Via value with `member` appended after the members already there
// (`existing`, empty for none): each proxy adds its own last (RFC 9110 §7.6.3).
std::string via_appended(std::string_view existing, std::string_view member);
// The same on a field list: the Via lines become one, ending in `member`.
void append_via(HeaderList& fields, std::string_view member);

// Whether any Via member was received-by `node_id` (case-insensitive): the
// request has already passed through this node, so forwarding it would loop.
bool via_has_node(const HeaderList& fields, std::string_view node_id);

}  // namespace sumcache::daemon
