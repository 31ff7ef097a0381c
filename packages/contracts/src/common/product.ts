/** The product's display name: the sign-in welcome line and the console footer carry it. */
export const PRODUCT_NAME = 'SMS Console';
