// Package engramproc builds the engram binary and runs it as a user would, for the
// end-to-end tests and the benchmark programs that measure the real process.
package engramproc

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"engram/test/logbuf"
)

// Build compiles engram into dir and returns the binary's path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "engram")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "engram")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build engram: %w", err)
	}
	return bin, nil
}

// FreeAddr is a loopback address nothing listens on at the time of the call.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Process is a running `engram serve`.
type Process struct {
	Cmd  *exec.Cmd
	Base string         // http://127.0.0.1:port
	Logs *logbuf.Buffer // what the process has written, stdout and stderr
}

// Start runs `engram serve` (plus args) on a free loopback port with the caller's
// environment and env, and waits up to ready for /readyz to answer 200 (the truth
// store is up). A process that does not become ready is killed; the error carries
// its logs.
func Start(bin string, ready time.Duration, args []string, env ...string) (*Process, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), append([]string{"ENGRAM_HTTP_ADDR=" + addr}, env...)...)
	logs := &logbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd, Base: "http://" + addr, Logs: logs}
	deadline := time.Now().Add(ready)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(p.Base + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.Kill()
	return nil, fmt.Errorf("engram did not become ready on %s within %s; logs:\n%s", addr, ready, logs.String())
}

// ErrStopTimeout: the process outlived the grace period after SIGTERM and was killed.
var ErrStopTimeout = errors.New("engram did not stop after SIGTERM")

// Stop sends SIGTERM and waits for the exit; after grace it kills the process and
// returns ErrStopTimeout. The error is the exit's otherwise (nil for a clean stop).
func (p *Process) Stop(grace time.Duration) error {
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- p.Cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		_ = p.Cmd.Process.Kill()
		<-done
		return fmt.Errorf("%w within %s", ErrStopTimeout, grace)
	}
}

// Kill ends the process at once (kill -9) unless it has already exited.
func (p *Process) Kill() {
	if p.Cmd.ProcessState == nil {
		_ = p.Cmd.Process.Kill()
		_ = p.Cmd.Wait()
	}
}
