# MoteConfig.cmake - find_package(Mote): mote_add_model() and friends (mote.cmake).
# In a checkout: -DMote_DIR=path/to/mote/cmake. Installed (cmake --install):
# <prefix>/lib/cmake/Mote, with the sources under <prefix>/share/mote.
if(NOT DEFINED MOTE_ROOT)
    if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../aot")
        get_filename_component(MOTE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
    else()
        get_filename_component(MOTE_ROOT "${CMAKE_CURRENT_LIST_DIR}/../../../share/mote" ABSOLUTE)
    endif()
endif()
include("${MOTE_ROOT}/cmake/mote.cmake")
set(Mote_FOUND TRUE)
