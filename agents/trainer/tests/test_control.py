import signal
import threading
import unittest

from tessera_trainer import control
from tessera_trainer.control import ControlRequests


class ControlRequestsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.saved_mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])  # query only

    def tearDown(self) -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, self.saved_mask)

    def send_to_this_thread(self, signum: int) -> None:
        # Thread-directed, so no other thread of the test process can receive (and die of) it.
        signal.pthread_kill(threading.get_ident(), signum)

    def test_blocked_signals_wait_for_take_and_the_strongest_wins(self) -> None:
        controls = ControlRequests().block()
        self.assertEqual(controls.take(), control.NONE)
        self.send_to_this_thread(signal.SIGUSR1)
        self.assertEqual(controls.take(), control.CHECKPOINT)
        self.assertEqual(controls.take(), control.NONE)  # consumed
        self.send_to_this_thread(signal.SIGUSR1)
        self.send_to_this_thread(signal.SIGTERM)
        self.assertEqual(controls.take(), control.CHECKPOINT_AND_STOP)
        self.send_to_this_thread(signal.SIGUSR2)
        self.assertEqual(controls.take(), control.CHECKPOINT_AND_STOP)
        self.assertEqual(controls.take(), control.NONE)


if __name__ == "__main__":
    unittest.main()
