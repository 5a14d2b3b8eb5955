# Checks the direction of every #include in model/, widgets/ and app/ (docs/architecture.md):
#
#   - model/ is cut into stages, in this order; a stage includes only itself and earlier stages:
#       core → wire → gates → store → run → evaluate → decide
#     and every model source sits in a stage folder;
#   - model/ never includes widgets/ or app/;
#   - widgets/ never includes app/ and never opens a socket (no Qt Network socket headers);
#   - app/ has two halves and what they share: app/cli/ (the headless commands) never includes
#     app/dashboard/ (the window and its sessions), and app/common/ includes neither.
#
# The stage libraries' link check (model/CMakeLists.txt) catches calls into a later stage; this
# catches what a link cannot see: a later stage's header used only for its types or inline code.
#
# Usage: cmake -DROOT=<source tree> -P check_layers.cmake   (fails listing every violation)

if(NOT ROOT)
    message(FATAL_ERROR "usage: cmake -DROOT=<source tree> -P check_layers.cmake")
endif()

set(stages core wire gates store run evaluate decide)
string(JOIN " → " stage_order ${stages})
set(socket_headers QTcpSocket QTcpServer QUdpSocket QSslSocket QLocalSocket QAbstractSocket
    QNetworkAccessManager QNetworkReply QNetworkRequest)

file(GLOB_RECURSE sources RELATIVE "${ROOT}" LIST_DIRECTORIES false
    "${ROOT}/model/*.h" "${ROOT}/model/*.cpp"
    "${ROOT}/widgets/*.h" "${ROOT}/widgets/*.cpp"
    "${ROOT}/app/*.h" "${ROOT}/app/*.cpp")
list(SORT sources)

set(problems "")
set(checked 0)
foreach(file IN LISTS sources)
    math(EXPR checked "${checked} + 1")
    set(own_rank "")
    if(file MATCHES "^model/([^/]+)/")
        list(FIND stages "${CMAKE_MATCH_1}" own_rank)
        if(own_rank EQUAL -1)
            list(APPEND problems "${file}: model/${CMAKE_MATCH_1}/ is not a stage (stages: ${stage_order})")
            continue()
        endif()
        set(own_stage "${CMAKE_MATCH_1}")
    elseif(file MATCHES "^model/[^/]+$")
        list(APPEND problems "${file}: a model source outside the stage folders (stages: ${stage_order})")
        continue()
    endif()

    file(STRINGS "${ROOT}/${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line IN LISTS includes)
        if(NOT line MATCHES "#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
            continue()
        endif()
        set(inc "${CMAKE_MATCH_1}")
        if(file MATCHES "^model/")
            if(inc MATCHES "^(widgets|app)/")
                list(APPEND problems "${file}: includes ${inc}: model/ never includes widgets/ or app/")
            elseif(inc MATCHES "^model/([^/]+)/")
                list(FIND stages "${CMAKE_MATCH_1}" inc_rank)
                if(inc_rank EQUAL -1)
                    list(APPEND problems "${file}: includes ${inc}: not a stage folder")
                elseif(inc_rank GREATER own_rank)
                    list(APPEND problems
                        "${file}: includes ${inc}: ${own_stage} may not include ${CMAKE_MATCH_1}, a later stage")
                endif()
            elseif(inc MATCHES "^model/")
                list(APPEND problems "${file}: includes ${inc}: not a stage folder")
            endif()
        elseif(file MATCHES "^app/(cli|common)/" AND inc MATCHES "^app/dashboard/")
            string(REGEX MATCH "^app/[a-z]+/" half "${file}")
            list(APPEND problems "${file}: includes ${inc}: ${half} never includes app/dashboard/")
        elseif(file MATCHES "^app/common/" AND inc MATCHES "^app/cli/")
            list(APPEND problems "${file}: includes ${inc}: app/common/ never includes app/cli/")
        elseif(file MATCHES "^widgets/")
            if(inc MATCHES "^app/")
                list(APPEND problems "${file}: includes ${inc}: widgets/ never includes app/")
            endif()
            string(REGEX REPLACE "^.*/" "" base "${inc}")
            list(FIND socket_headers "${base}" socket)
            if(NOT socket EQUAL -1)
                list(APPEND problems "${file}: includes <${inc}>: widgets/ never opens a socket")
            endif()
        endif()
    endforeach()
endforeach()

if(checked EQUAL 0)
    message(FATAL_ERROR "no sources found under ${ROOT}: wrong ROOT?")
endif()
list(LENGTH problems count)
if(count GREATER 0)
    foreach(p IN LISTS problems)
        message("layering: ${p}")
    endforeach()
    message(FATAL_ERROR "${count} layering problem(s) in ${checked} files (see docs/architecture.md)")
endif()
message("layering: ${checked} files, every include runs the right way")
