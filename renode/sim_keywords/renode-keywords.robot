*** Comments ***
Stands in for Renode's renode-keywords.robot where Renode is not installed:
the robot files in renode/tests import ${RENODEKEYWORDS}, which renode-test
sets to Renode's own file; point it here to run them on each board's own
simulator (QEMU for mps2-an505, rp2040js for the pico; SimKeywords.py):
    robot --variable RENODEKEYWORDS:renode/sim_keywords/renode-keywords.robot renode/tests/

*** Settings ***
Library    SimKeywords.py
