/** What a visitor page is dressed in; the Branding settings of the link's account fill it. */
export interface Brand {
  companyName: string | null;
  logoUrl: string | null;
  logoSize: number;
  primaryColor: string;
  /** The brand colour as text, links and focus rings wear it: a shade of it readable on the card and the page (`accentOn`). */
  accentColor: string;
  bgColor: string;
  btnTextColor: string;
  btnRadius: string;
  cardBgColor: string;
  cardBorderColor: string;
  textColor: string;
}

export const DEFAULT_BRAND: Readonly<Brand> = {
  companyName: null,
  logoUrl: null,
  logoSize: 40,
  primaryColor: '#2457d6',
  accentColor: '#2457d6',
  bgColor: '#f4f6fa',
  btnTextColor: '#ffffff',
  btnRadius: '8px',
  cardBgColor: '#ffffff',
  cardBorderColor: '#dde2ea',
  textColor: '#1c2330',
};

export type BrandProvider = (accountId: number) => Promise<Brand>;

export const defaultBrandProvider: BrandProvider = async () => DEFAULT_BRAND;
