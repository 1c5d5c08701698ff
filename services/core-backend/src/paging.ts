/** Which page of a list: the kit's, so domain modules and repositories name it from here. */
export type { Paging } from '@pelita/kit';
