# Writes OUT: a C++ source that registers the text of IN under NAME. The text is split into raw
# string chunks because compilers limit the length of one string literal.
file(READ ${IN} _text)
string(LENGTH "${_text}" _len)
set(_chunks "")
set(_pos 0)
while(_pos LESS _len)
  string(SUBSTRING "${_text}" ${_pos} 8000 _piece)
  string(APPEND _chunks "  R\"HTEMBED(${_piece})HTEMBED\"\n")
  math(EXPR _pos "${_pos} + 8000")
endwhile()
string(MAKE_C_IDENTIFIER ${NAME} _id)
file(WRITE ${OUT} "// Generated from ${NAME} by embed.cmake; do not edit.\n"
  "#include \"histtune/templates/registry.hpp\"\n"
  "namespace {\n"
  "const char kText[] =\n${_chunks};\n"
  "const histtune::templates::Registrar kRegistrar{\"${NAME}\", kText, sizeof(kText) - 1};\n"
  "}  // namespace\n"
  "namespace histtune::templates { void link_${_id}() {} }\n")
