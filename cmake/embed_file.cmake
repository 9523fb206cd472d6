# cmake -DINPUT=file -DOUTPUT=file.cc -DFUNCTION=ns::name -DHEADER=path/of/decl.h -P embed_file.cmake
# Writes a .cc defining `std::string_view FUNCTION()` that returns INPUT's bytes.
# Bytes as a hex array rather than a raw string literal: any content is safe
# (no delimiter to collide with) and -Woverlength-strings does not apply.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
# One line of the array per line of the input, so the generated file stays readable.
string(REPLACE "'\\x0a'," "'\\x0a',\n    " bytes "${bytes}")
string(REGEX MATCH "^(.*)::([^:]+)$" _ "${FUNCTION}")
set(namespace "${CMAKE_MATCH_1}")
set(name "${CMAKE_MATCH_2}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/embed_file.cmake: do not edit.
#include \"${HEADER}\"

namespace ${namespace} {
namespace {
constexpr char kBytes[${size} + 1] = {
    ${bytes}'\\0'};
}  // namespace

std::string_view ${name}() { return {kBytes, ${size}}; }

}  // namespace ${namespace}
")
# Only touch OUTPUT when it changed, so an unchanged page recompiles nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
