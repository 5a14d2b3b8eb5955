# SPDX-License-Identifier: MIT
# Installs the build tree into PREFIX and checks what a Linux desktop and a package need:
#   bin/quantscope that runs (--version, --help listing every subcommand),
#   share/applications/APP_ID.desktop whose Exec runs that binary and whose Icon= is APP_ID,
#   share/icons/hicolor/NxN/apps/APP_ID.png at every size (the PNG header says N x N) + scalable SVG,
#   share/metainfo/APP_ID.metainfo.xml whose <id>, launchable and release agree with the above,
#   share/doc/quantscope/README.md, docs/*.md, copyright and changelog.gz, and
#   share/man/man1/quantscope.1.gz when help2man is installed.
# Validates the desktop file and the metainfo too when desktop-file-validate / appstreamcli exist.
# Usage: cmake -DBUILD_DIR=… -DPREFIX=… -DAPP_ID=… -DVERSION=… -DICON_SIZES="16;32…" -P check_install.cmake
cmake_minimum_required(VERSION 3.22)
foreach(var BUILD_DIR PREFIX APP_ID VERSION ICON_SIZES)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
        message(FATAL_ERROR "check_install.cmake: -D${var}=… is required")
    endif()
endforeach()

# Every check reports and goes on, so one run lists all that is wrong.
set(failures 0)
macro(fail message)
    message(SEND_ERROR "FAIL: ${message}")
    math(EXPR failures "${failures} + 1")
endmacro()

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc}); build the quantscope target first.\n${out}${err}")
endif()

# ---- the binary ----
set(bin "${PREFIX}/bin/quantscope")
if(NOT EXISTS "${bin}")
    message(FATAL_ERROR "${bin} is not installed")
endif()
execute_process(COMMAND "${bin}" --version RESULT_VARIABLE rc OUTPUT_VARIABLE version_out)
if(NOT rc EQUAL 0)
    fail("quantscope --version exited with ${rc}")
endif()
if(NOT version_out MATCHES "^quantscope ([0-9.]+) \\(Qt 6\\.[0-9]+\\.[0-9]+\\)\n" OR NOT CMAKE_MATCH_1 STREQUAL VERSION)
    fail("quantscope --version should start \"quantscope ${VERSION} (Qt 6.x.y)\", got: ${version_out}")
endif()
if(NOT version_out MATCHES "\nBuilt with [^\n]+ against Qt 6\\.[0-9]+\\.[0-9]+, [A-Za-z]+ build")
    fail("quantscope --version lacks the compiler / Qt / build type line: ${version_out}")
endif()

execute_process(COMMAND "${bin}" --help RESULT_VARIABLE rc OUTPUT_VARIABLE help_out)
if(NOT rc EQUAL 0)
    fail("quantscope --help exited with ${rc}")
endif()
foreach(cmd gui run summary report screenshot recover probe chat emulate demo)
    if(NOT help_out MATCHES "\n  ${cmd} ")
        fail("quantscope --help does not list the '${cmd}' command")
    endif()
endforeach()
if(NOT help_out MATCHES "quantscope COMMAND --help")
    fail("quantscope --help does not point to 'quantscope COMMAND --help'")
endif()

# ---- desktop entry ----
set(desktop "${PREFIX}/share/applications/${APP_ID}.desktop")
if(EXISTS "${desktop}")
    file(STRINGS "${desktop}" icon_line REGEX "^Icon=")
    file(STRINGS "${desktop}" exec_line REGEX "^Exec=")
    if(NOT icon_line STREQUAL "Icon=${APP_ID}")
        fail("desktop entry has '${icon_line}', expected Icon=${APP_ID} (the metainfo id)")
    endif()
    # `gui` matters: without it quantscope would take the first file for a subcommand.
    if(NOT exec_line STREQUAL "Exec=quantscope gui %F")
        fail("desktop entry has '${exec_line}', expected Exec=quantscope gui %F")
    endif()
else()
    fail("${desktop} is not installed")
endif()

# ---- icons ----
foreach(size IN LISTS ICON_SIZES)
    set(png "${PREFIX}/share/icons/hicolor/${size}x${size}/apps/${APP_ID}.png")
    if(NOT EXISTS "${png}")
        fail("${png} is not installed")
        continue()
    endif()
    # A PNG starts with its 8-byte signature, then the IHDR chunk: length, "IHDR", and width and
    # height as big-endian 32-bit numbers at bytes 16 and 20.
    file(READ "${png}" header LIMIT 24 HEX)
    string(SUBSTRING "${header}" 0 16 signature)
    string(SUBSTRING "${header}" 32 8 width_hex)
    string(SUBSTRING "${header}" 40 8 height_hex)
    math(EXPR width "0x${width_hex}")
    math(EXPR height "0x${height_hex}")
    if(NOT signature STREQUAL "89504e470d0a1a0a")
        fail("${png} is not a PNG")
    elseif(NOT width EQUAL size OR NOT height EQUAL size)
        fail("${png} is ${width}x${height}, expected ${size}x${size}")
    endif()
endforeach()
set(svg "${PREFIX}/share/icons/hicolor/scalable/apps/${APP_ID}.svg")
if(EXISTS "${svg}")
    file(READ "${svg}" svg_text)
    if(NOT svg_text MATCHES "<svg [^>]*viewBox=\"0 0 ")
        fail("${svg} has no <svg viewBox=…>, so it would not scale")
    endif()
else()
    fail("${svg} is not installed")
endif()

# ---- AppStream metainfo ----
set(metainfo "${PREFIX}/share/metainfo/${APP_ID}.metainfo.xml")
if(EXISTS "${metainfo}")
    file(READ "${metainfo}" xml)
    string(REGEX MATCH "<id>([^<]*)</id>" _ "${xml}")
    if(NOT CMAKE_MATCH_1 STREQUAL APP_ID)
        fail("metainfo <id>${CMAKE_MATCH_1}</id>, expected ${APP_ID} (the desktop entry's name and Icon=)")
    endif()
    string(REGEX MATCH "<launchable type=\"desktop-id\">([^<]*)</launchable>" _ "${xml}")
    if(NOT CMAKE_MATCH_1 STREQUAL "${APP_ID}.desktop")
        fail("metainfo launchable '${CMAKE_MATCH_1}' is not ${APP_ID}.desktop")
    endif()
    string(REGEX MATCH "<release version=\"([^\"]*)\"" _ "${xml}")
    if(NOT CMAKE_MATCH_1 STREQUAL VERSION)
        fail("metainfo's release is '${CMAKE_MATCH_1}', expected ${VERSION}")
    endif()
    if(xml MATCHES "@[A-Z_]+@")
        fail("metainfo has an unreplaced ${CMAKE_MATCH_0}")
    endif()
    foreach(tag "<name>" "<summary>" "<description>" "<content_rating" "<url type=\"homepage\">")
        string(FIND "${xml}" "${tag}" at)
        if(at EQUAL -1)
            fail("metainfo has no ${tag}")
        endif()
    endforeach()
else()
    fail("${metainfo} is not installed")
endif()

# ---- documentation ----
set(docdir "${PREFIX}/share/doc/quantscope")
foreach(doc README.md docs/methodology.md copyright changelog.gz)
    if(NOT EXISTS "${docdir}/${doc}")
        fail("${docdir}/${doc} is not installed")
    endif()
endforeach()
# Debian's copyright format, with a notice lintian accepts (a year and a holder).
if(EXISTS "${docdir}/copyright")
    file(READ "${docdir}/copyright" copyright)
    if(NOT copyright MATCHES "\nCopyright: [0-9][0-9][0-9][0-9]")
        fail("${docdir}/copyright has no \"Copyright: YEAR holder\" line")
    endif()
endif()
# The manual page, when help2man was there to write it (scripts/install-deps.sh installs it).
find_program(HELP2MAN help2man)
if(HELP2MAN AND NOT EXISTS "${PREFIX}/share/man/man1/quantscope.1.gz")
    fail("share/man/man1/quantscope.1.gz is not installed (help2man is)")
endif()

# ---- validators, where installed (apt-get install desktop-file-utils appstream) ----
find_program(DESKTOP_FILE_VALIDATE desktop-file-validate)
if(DESKTOP_FILE_VALIDATE AND EXISTS "${desktop}")
    execute_process(COMMAND ${DESKTOP_FILE_VALIDATE} "${desktop}"
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        fail("desktop-file-validate rejects ${desktop}:\n${out}${err}")
    endif()
else()
    message(STATUS "desktop-file-validate not found: the desktop entry's syntax is not validated")
endif()
find_program(APPSTREAMCLI appstreamcli)
if(APPSTREAMCLI AND EXISTS "${metainfo}")
    # --no-net: the homepage is not fetched, so the check works offline.
    execute_process(COMMAND ${APPSTREAMCLI} validate --no-net "${metainfo}"
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        fail("appstreamcli validate rejects ${metainfo}:\n${out}${err}")
    endif()
else()
    message(STATUS "appstreamcli not found: the metainfo is not validated")
endif()

if(failures GREATER 0)
    message(FATAL_ERROR "${failures} packaging check(s) failed")
endif()
message(STATUS "packaging layout OK under ${PREFIX}")
