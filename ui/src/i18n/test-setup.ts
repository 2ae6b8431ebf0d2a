// Unit tests read the desk's words as the page does: English loaded first.
import { ready } from './index.svelte';

await ready();
