# The C++ client library: target id_gen (exported as id_gen::id_gen), its install rules, a CMake
# package (find_package(id_gen)) and a pkg-config file (id_gen.pc). Included by CMakeLists.txt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
find_package(Threads REQUIRED)

# Static by default; -DBUILD_SHARED_LIBS=ON makes it shared.
add_library(id_gen ${IDGEN_CORE_SOURCES} ${IDGEN_LIB_SOURCES})
add_library(id_gen::id_gen ALIAS id_gen)
configure_file(${CMAKE_SOURCE_DIR}/include/id_gen/version.hpp.in ${CMAKE_BINARY_DIR}/include/id_gen/version.hpp @ONLY)
target_include_directories(id_gen
  PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/include>
         $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_features(id_gen PUBLIC cxx_std_17)
target_compile_options(id_gen PRIVATE -Wall -Wextra -Wno-unused-parameter)
target_link_libraries(id_gen PUBLIC Threads::Threads)
set_target_properties(id_gen PROPERTIES POSITION_INDEPENDENT_CODE ON
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})

install(TARGETS id_gen EXPORT id_genTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Every public header, by directory: a header added to include/id_gen/ is installed without a
# change here (README.md and version.hpp.in stay behind; version.hpp is made by configure_file).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/id_gen/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/id_gen
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${CMAKE_BINARY_DIR}/include/id_gen/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/id_gen)

set(IDGEN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/id_gen)
install(EXPORT id_genTargets NAMESPACE id_gen:: DESTINATION ${IDGEN_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/id_genConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/id_genConfig.cmake INSTALL_DESTINATION ${IDGEN_CMAKE_DIR})
# 0.x: a minor release may change the API, so 0.2.1 satisfies a request for 0.2, not for 0.1.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/id_genConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/id_genConfig.cmake ${CMAKE_BINARY_DIR}/id_genConfigVersion.cmake
        DESTINATION ${IDGEN_CMAKE_DIR})

# id_gen.pc finds its prefix from its own location (${pcfiledir}), so an installed tree can move.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(IDGEN_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(IDGEN_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH IDGEN_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" IDGEN_PC_UP "${IDGEN_PC_UP}")
  set(IDGEN_PC_PREFIX "\${pcfiledir}/${IDGEN_PC_UP}")
  set(IDGEN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(IDGEN_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(IDGEN_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/id_gen.pc.in ${CMAKE_BINARY_DIR}/id_gen.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/id_gen.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
