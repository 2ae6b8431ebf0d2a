// A <dialog> shown as the desk's modal: the rest of the screen is out of reach while it is open,
// Esc closes it (`onclose`), and the cursor goes back where it was once it is gone.
export function modal(node: HTMLDialogElement, onclose: () => void) {
  const before = document.activeElement as HTMLElement | null;
  const cancel = (e: Event) => {
    e.preventDefault(); // the component decides; the dialog only says Esc was pressed
    onclose();
  };
  node.addEventListener('cancel', cancel);
  node.showModal();
  return {
    destroy() {
      node.removeEventListener('cancel', cancel);
      if (node.open) node.close();
      if (before?.isConnected) before.focus();
    },
  };
}
