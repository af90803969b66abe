# Registries whose implementations are one file each: roofsim_registry(FOLDER MACRO SOURCES_VAR)
# globs FOLDER/*.cpp (CONFIGURE_DEPENDS: a new file re-runs the glob), sets SOURCES_VAR to the
# files, and writes generated/FOLDER.inc with one MACRO(<file stem>) line per file, which the
# registry's .cpp includes to declare and call each file's registration function. Generating
# the list avoids self-registering static objects, which the linker drops from static libraries.
function(roofsim_registry folder macro sources_var)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.cpp)
  list(SORT sources)
  set(lines "")
  foreach(source IN LISTS sources)
    get_filename_component(stem ${source} NAME_WE)
    string(APPEND lines "${macro}(${stem})\n")
  endforeach()
  file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/generated/${folder}.inc CONTENT "${lines}")
  set(${sources_var} ${sources} PARENT_SCOPE)
endfunction()
