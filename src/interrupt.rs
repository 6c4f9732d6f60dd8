//! Ctrl-C while orla asks a question (the consent prompt, the scaffold
//! wizard). The prompts hide the cursor and put the terminal in raw mode;
//! the default SIGINT action would end orla with the cursor still hidden.
//! While a [`PromptGuard`] lives, SIGINT shows the cursor again, ends the
//! line and exits with 130 (128 + SIGINT, what a shell reports for a
//! Ctrl-C). The prompt library restores the terminal mode itself before it
//! raises SIGINT. Nothing has been changed on disk while a question is
//! open, so there is nothing to undo.

/// Installs the handler until dropped, then puts the previous one back.
pub struct PromptGuard {
    #[cfg(unix)]
    previous: libc::sighandler_t,
}

impl PromptGuard {
    pub fn new() -> PromptGuard {
        #[cfg(unix)]
        {
            let handler = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SAFETY: the handler only calls async-signal-safe functions.
            let previous = unsafe { libc::signal(libc::SIGINT, handler) };
            PromptGuard { previous }
        }
        #[cfg(not(unix))]
        PromptGuard {}
    }
}

impl Default for PromptGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for PromptGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: restores the disposition that was in place before.
        unsafe {
            libc::signal(libc::SIGINT, self.previous);
        }
    }
}

/// The exit code of a command interrupted by Ctrl-C.
pub const EXIT_INTERRUPTED: i32 = 130;

#[cfg(unix)]
extern "C" fn on_interrupt(_: libc::c_int) {
    // Show the cursor, end the prompt's line. write(2) and _exit(2) are
    // async-signal-safe; nothing else is called here.
    const RESTORE: &[u8] = b"\x1b[?25h\n";
    // SAFETY: a static buffer written to stderr, then the process ends.
    unsafe {
        libc::write(2, RESTORE.as_ptr().cast(), RESTORE.len());
        libc::_exit(EXIT_INTERRUPTED);
    }
}
