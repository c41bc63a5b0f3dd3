*** Comments ***
Stands in for Renode's renode-keywords.robot where Renode is not installed:
the robot files in renode/tests import ${RENODEKEYWORDS}, which renode-test
sets to Renode's own file; point it here to run them on QEMU:
    robot --variable RENODEKEYWORDS:renode/qemu_keywords/renode-keywords.robot renode/tests/

*** Settings ***
Library    QemuKeywords.py
