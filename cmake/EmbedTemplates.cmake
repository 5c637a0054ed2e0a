# Turns each template header into a C++ string literal so the runtime can hand
# it to NVRTC as an in-memory header and `emit` can write it next to a kernel.
function(embed_templates out_file)
  set(body "#include \"templates/Embedded.h\"\nnamespace warpforge {\nconst std::vector<EmbeddedFile>& embeddedTemplates() {\n  static const std::vector<EmbeddedFile> files = {\n")
  foreach(rel ${ARGN})
    set(src ${CMAKE_SOURCE_DIR}/${rel})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
    file(READ ${src} content)
    get_filename_component(name ${rel} NAME)
    string(APPEND body "    {\"${name}\", R\"WFEMBED(${content})WFEMBED\"},\n")
  endforeach()
  string(APPEND body "  };\n  return files;\n}\n}  // namespace warpforge\n")
  file(GENERATE OUTPUT ${out_file} CONTENT "${body}")
endfunction()
